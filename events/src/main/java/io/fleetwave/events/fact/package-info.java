/**
 * The control plane's own facts on fleet.control-facts: what it decided and no other log holds
 * (node keys enrolled, nodes revoked and re-admitted, join tokens created and used). PostgreSQL's
 * tables of them are projections of this topic, so a lost database is rebuilt from it.
 */
package io.fleetwave.events.fact;
