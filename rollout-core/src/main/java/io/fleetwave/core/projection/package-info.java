/**
 * The projection's fold, pure: records decoded and checked (RecordDecoder), each node's (epoch,
 * seq) position, a batch folded into the changes to write (ProjectionFold, BatchChanges), the one
 * node-event fold of a node's reconcile (ReconcileState, the engine reads it too), and the history
 * table's partition plan.
 */
package io.fleetwave.core.projection;
