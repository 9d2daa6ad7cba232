package io.fleetwave.controlplane.projection;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.NodeEvent;
import java.util.List;

/**
 * The outcome of folding a batch: the events to apply (in order, for the history), how many were
 * skipped as duplicates or stale, and the resulting change per node.
 */
public record BatchChanges(List<Envelope<NodeEvent>> applied, int skipped, List<NodeChange> nodes) {
  public BatchChanges {
    applied = List.copyOf(applied);
    nodes = List.copyOf(nodes);
  }
}
