package io.fleetwave.core.rollout.plan;

import io.fleetwave.core.driver.NodeDriverFacts;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.NodeRegistered;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * One node as the planner sees it: host facts, labels and GPUs (from the projection).
 *
 * @param zone the zone the agent reported, used when the zone label is missing; may be null
 */
public record FleetNode(
    String name,
    HostKind hostKind,
    String zone,
    Map<String, String> labels,
    NodeDriverFacts driver,
    List<Gpu> gpus) {

  public FleetNode {
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    gpus = gpus.stream().sorted(Comparator.comparingInt(Gpu::index)).toList();
  }

  public static FleetNode of(NodeRegistered node, GpuInventoryReported inventory) {
    return new FleetNode(
        node.hostname(),
        node.hostKind(),
        node.zone(),
        node.labels(),
        NodeDriverFacts.of(node),
        inventory.gpus());
  }
}
