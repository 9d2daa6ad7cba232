package io.fleetwave.core.projection;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.AgentStopping;
import io.fleetwave.events.node.EventsDropped;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.GateReleased;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The pure heart of the projection: given each node's stored position and a batch of events in log
 * order, decide which events apply and what they change. An event applies only when its (epoch,
 * seq) comes strictly after the node's position so far, so duplicates, redeliveries, replays and
 * older-after-newer events change nothing. No I/O; the writer runs it under the row locks.
 */
public final class ProjectionFold {
  private ProjectionFold() {}

  public static BatchChanges fold(
      Map<String, NodePosition> stored, List<Envelope<NodeEvent>> events) {
    return fold(stored, Map.of(), events);
  }

  /**
   * @param reconciles the stored reconcile state of the batch's nodes (those without one start from
   *     {@link ReconcileState#NONE}); needed only for batches with progress events
   */
  public static BatchChanges fold(
      Map<String, NodePosition> stored,
      Map<String, ReconcileState> reconciles,
      List<Envelope<NodeEvent>> events) {
    Map<String, NodeAccumulator> byNode = new LinkedHashMap<>();
    Map<String, NodePosition> positions = new HashMap<>(stored);
    List<Envelope<NodeEvent>> applied = new ArrayList<>();
    int skipped = 0;
    for (Envelope<NodeEvent> event : events) {
      String node = event.subject();
      NodePosition position = positions.getOrDefault(node, NodePosition.NONE);
      if (!position.precedes(event)) {
        skipped++;
        continue;
      }
      positions.put(node, NodePosition.of(event));
      applied.add(event);
      byNode
          .computeIfAbsent(
              node, n -> new NodeAccumulator(n, reconciles.getOrDefault(n, ReconcileState.NONE)))
          .apply(event, position.missedBefore(event));
    }
    return new BatchChanges(
        applied, skipped, byNode.values().stream().map(NodeAccumulator::change).toList());
  }

  private static final class NodeAccumulator {
    private final String node;
    private NodePosition position = NodePosition.NONE;
    private Instant lastSeen;
    private NodeRegistered facts;
    private GpuInventoryReported inventory;
    private ReconcileState reconcile;
    private boolean reconcileChanged;
    private long missed;

    NodeAccumulator(String node, ReconcileState reconcile) {
      this.node = node;
      this.reconcile = reconcile;
    }

    void apply(Envelope<NodeEvent> event, long missedBefore) {
      position = NodePosition.of(event);
      missed += missedBefore;
      lastSeen = event.time();
      switch (event.data()) {
        case NodeRegistered registered -> facts = registered;
        case GpuInventoryReported reported -> inventory = reported;
        case NodeBooted _,
            SpecAccepted _,
            SpecRejected _,
            StepStarted _,
            StepSucceeded _,
            StepFailed _,
            SpecApplied _,
            GateHeld _,
            GateReleased _ -> {
          reconcile = reconcile.apply(event.data());
          reconcileChanged = true;
        }
        // These count for order, last-seen and history only. Listed, not defaulted, so that a new
        // event type makes this switch fail to compile.
        case Heartbeat _, AgentStopping _ -> {}
        // The agent declares the seqs it lost while the broker was away. Positions only need to
        // grow, so the gap is accepted as is; the event stays in the node's history, where the gap
        // is visible, and the registration and inventory the agent restates next apply as usual.
        case EventsDropped _ -> {}
      }
    }

    NodeChange change() {
      return new NodeChange(
          node,
          position,
          lastSeen,
          Optional.ofNullable(facts),
          Optional.ofNullable(inventory),
          reconcileChanged ? Optional.of(reconcile) : Optional.empty(),
          missed);
    }
  }
}
