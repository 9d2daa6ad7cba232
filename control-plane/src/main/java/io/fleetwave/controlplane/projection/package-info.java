/**
 * The projection of fleet.node-events into PostgreSQL: the consumer, the fold (pure:
 * ProjectionFold, ReconcileState), the writer with its per-node (epoch, seq) check, dead letters,
 * rebuild and comparison.
 */
package io.fleetwave.controlplane.projection;
