package io.fleetwave.core.rollout.plan;

import java.util.List;

/**
 * Nodes taken out of service together: never more than maxUnavailable, never from more than
 * maxZonesInFlight zones.
 *
 * @param zones the distinct zones of its nodes, sorted
 */
public record NodeBatch(int number, List<String> zones, List<NodePlan> nodes) {
  public NodeBatch {
    zones = List.copyOf(zones);
    nodes = List.copyOf(nodes);
  }
}
