package io.fleetwave.core.rollout.plan;

import io.fleetwave.core.driver.NodeDriverFacts;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.spec.NodeSpec;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * One node as the planner sees it: host facts, labels and GPUs (from the projection), and where it
 * is going: its desired spec, which a process holding its GPUs may keep it from reaching for a
 * while.
 *
 * @param zone the zone the agent reported, used when the zone label is missing; may be null
 * @param desired the node's desired spec, or null when it has none
 * @param specPending whether the node has not applied its desired spec yet
 */
public record FleetNode(
    String name,
    HostKind hostKind,
    String zone,
    Map<String, String> labels,
    NodeDriverFacts driver,
    List<Gpu> gpus,
    NodeSpec desired,
    boolean specPending) {

  public FleetNode {
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    gpus = gpus.stream().sorted(Comparator.comparingInt(Gpu::index)).toList();
  }

  /** A node without a desired spec. */
  public FleetNode(
      String name,
      HostKind hostKind,
      String zone,
      Map<String, String> labels,
      NodeDriverFacts driver,
      List<Gpu> gpus) {
    this(name, hostKind, zone, labels, driver, gpus, null, false);
  }

  /** The desired spec while the node has not applied it, else null. */
  public NodeSpec pendingSpec() {
    return specPending ? desired : null;
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
