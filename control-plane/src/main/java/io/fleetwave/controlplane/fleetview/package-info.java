/**
 * The fleet each replica holds in memory, folded from fleet.node-events with the projection's own
 * check and fold, and read without PostgreSQL (the fleet summary, one node, the node list);
 * PostgreSQL stays the durable copy it is loaded from and compared with.
 */
package io.fleetwave.controlplane.fleetview;
