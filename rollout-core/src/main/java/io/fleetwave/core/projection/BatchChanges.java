package io.fleetwave.core.projection;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.NodeEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of folding a batch: the events to apply (in order, for the history), how many were
 * skipped as duplicates or stale, and the resulting change per node.
 */
public record BatchChanges(List<Envelope<NodeEvent>> applied, int skipped, List<NodeChange> nodes) {
  public static final BatchChanges NONE = new BatchChanges(List.of(), 0, List.of());

  public BatchChanges {
    applied = List.copyOf(applied);
    nodes = List.copyOf(nodes);
  }

  /**
   * The applied events the node history keeps: every change of state. Heartbeats are liveness only;
   * the node row's last_seen and position hold the newest, so storing each would grow the history
   * by one row per node per heartbeat interval and say nothing more (docs/reliability.md "The node
   * history is bounded").
   */
  public List<Envelope<NodeEvent>> history() {
    return applied.stream().filter(event -> !(event.data() instanceof Heartbeat)).toList();
  }

  /** This batch followed by {@code later}, as if both had been one batch. */
  public BatchChanges then(BatchChanges later) {
    List<Envelope<NodeEvent>> events = new ArrayList<>(applied);
    events.addAll(later.applied);
    Map<String, NodeChange> byNode = new LinkedHashMap<>();
    for (NodeChange change : nodes) {
      byNode.put(change.node(), change);
    }
    for (NodeChange change : later.nodes) {
      byNode.merge(change.node(), change, NodeChange::then);
    }
    return new BatchChanges(events, skipped + later.skipped, List.copyOf(byNode.values()));
  }
}
