package io.fleetwave.core.rollout.plan;

import io.fleetwave.core.mig.PciDeviceFilter;
import io.fleetwave.core.selector.LabelSelector;
import io.fleetwave.events.gpu.GpuCatalog;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** Whether a node is targeted: every target field that is set must match (AND). */
final class TargetMatcher {
  private final RolloutTarget target;
  private final LabelSelector selector;
  private final Set<String> gpuModels;

  TargetMatcher(RolloutTarget target, LabelSelector selector, GpuCatalog catalog) {
    this.target = target;
    this.selector = selector;
    // A short name or any PCI id of a catalogue model stands for all of that model's ids.
    this.gpuModels =
        target.gpuModels().stream()
            .flatMap(
                m ->
                    catalog
                        .find(m)
                        .map(model -> model.pciDeviceIds().stream())
                        .orElseGet(() -> java.util.stream.Stream.of(m)))
            .map(PciDeviceFilter::normalize)
            .collect(Collectors.toSet());
  }

  boolean matches(FleetNode node) {
    if (target.allNodes()) {
      return true;
    }
    return selector.matches(node.labels())
        && (target.hostKinds().isEmpty() || target.hostKinds().contains(node.hostKind()))
        && (target.nodes().isEmpty() || target.nodes().contains(node.name()))
        && (gpuModels.isEmpty()
            || node.gpus().stream()
                .anyMatch(g -> gpuModels.contains(PciDeviceFilter.normalize(g.pciDeviceId()))));
  }

  /** Nodes the target names explicitly that the fleet does not have. */
  List<String> missing(FleetSnapshot fleet) {
    Set<String> present = fleet.nodes().stream().map(FleetNode::name).collect(Collectors.toSet());
    return target.nodes().stream().filter(n -> !present.contains(n)).sorted().toList();
  }
}
