package io.fleetwave.core.rollout.plan;

import io.fleetwave.events.node.HostKind;
import java.util.List;

/**
 * Which nodes a rollout is for. Fields combine with AND; empty lists do not constrain. An empty
 * target is refused: the whole fleet is targeted only with {@code allNodes: true}.
 *
 * @param selector a label selector ({@link LabelSelector}), or null
 * @param gpuModels PCI device ids ({@code 0x233010DE}) or catalogue short names: a node matches if
 *     it has a GPU of one of them
 * @param hostKinds host kinds
 * @param nodes node names
 * @param allNodes the explicit "whole fleet" switch
 */
public record RolloutTarget(
    String selector,
    List<String> gpuModels,
    List<HostKind> hostKinds,
    List<String> nodes,
    boolean allNodes) {

  public RolloutTarget {
    gpuModels = gpuModels == null ? List.of() : List.copyOf(gpuModels);
    hostKinds = hostKinds == null ? List.of() : List.copyOf(hostKinds);
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
  }

  public static RolloutTarget wholeFleet() {
    return new RolloutTarget(null, null, null, null, true);
  }

  /** True when no field constrains the target. */
  public boolean isEmpty() {
    return (selector == null || selector.isBlank())
        && gpuModels.isEmpty()
        && hostKinds.isEmpty()
        && nodes.isEmpty();
  }
}
