package io.fleetwave.core.projection;

import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.NodeRegistered;
import java.time.Instant;
import java.util.Optional;

/**
 * What one batch changes for one node: its new position and last-seen time, and the newest facts
 * and GPU inventory among the applied events (empty when the batch carried none), and the node's
 * reconcile state after the batch's progress events (empty when it carried none), and how many of
 * its numbered events the batch skipped over ({@link NodePosition#missedBefore}).
 */
public record NodeChange(
    String node,
    NodePosition position,
    Instant lastSeen,
    Optional<NodeRegistered> facts,
    Optional<GpuInventoryReported> inventory,
    Optional<ReconcileState> reconcile,
    long missed) {

  /** This change followed by {@code later} of the same node: the newest of each part wins. */
  public NodeChange then(NodeChange later) {
    return new NodeChange(
        node,
        later.position,
        later.lastSeen,
        later.facts.or(() -> facts),
        later.inventory.or(() -> inventory),
        later.reconcile.or(() -> reconcile),
        missed + later.missed);
  }
}
