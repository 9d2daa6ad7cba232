/**
 * The desired specs and one-shot command counters in PostgreSQL, as projections of their facts on
 * fleet.control-facts: what the spec service, the follower and the rebuild all apply. Apart from
 * the spec service (which reads the projection), so the projection's rebuild may use it.
 */
package io.fleetwave.controlplane.spec.store;
