package io.fleetwave.core.rollout.plan;

import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The fleet at planning time; nodes are held sorted by name so that plans never depend on order.
 *
 * @param revoked the names of the nodes an admin revoked: no rollout may include them
 */
public record FleetSnapshot(List<FleetNode> nodes, Set<String> revoked) {
  /** A fleet without revoked nodes. */
  public FleetSnapshot(List<FleetNode> nodes) {
    this(nodes, Set.of());
  }

  public FleetSnapshot {
    revoked = Set.copyOf(revoked);
    nodes = nodes.stream().sorted(Comparator.comparing(FleetNode::name)).toList();
    Set<String> names = new HashSet<>();
    for (FleetNode node : nodes) {
      if (!names.add(node.name())) {
        throw new IllegalArgumentException("node " + node.name() + " appears twice in the fleet");
      }
    }
  }
}
