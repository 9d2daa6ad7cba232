/**
 * The audit log's writes: each entry a fact on fleet.control-facts, then its row. Apart from the
 * API-facing audit package, so that enrolment and the projection's rebuild may use it.
 */
package io.fleetwave.controlplane.audit.store;
