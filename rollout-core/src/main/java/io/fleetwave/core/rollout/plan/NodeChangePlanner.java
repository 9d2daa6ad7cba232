package io.fleetwave.core.rollout.plan;

import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.core.driver.DriverArtifactResolver;
import io.fleetwave.core.driver.DriverResolution;
import io.fleetwave.core.driver.DriverVersion;
import io.fleetwave.core.mig.GpuResolution;
import io.fleetwave.core.mig.MigConfigResolver;
import io.fleetwave.core.mig.MigResolution;
import io.fleetwave.core.mig.NodeGpu;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Works out exactly what a rollout does to one node, or why the node is left out. A node is at the
 * target only when both where it is (observed) and where it is going (its desired spec) are: one
 * whose desired spec asks for something else would otherwise be left out and then, once whatever
 * held it back lets go, move away from the target.
 */
final class NodeChangePlanner {
  private final GpuCatalog catalog;
  private final MigConfigResolver migResolver;
  private final DriverArtifactResolver drivers;

  NodeChangePlanner(GpuCatalog catalog, DriverArtifactResolver drivers) {
    this.catalog = catalog;
    this.migResolver = new MigConfigResolver(catalog);
    this.drivers = drivers;
  }

  NodeOutcome plan(FleetNode node, ValidRollout rollout, String zone) {
    List<GpuChange> changes = new ArrayList<>();
    List<UntouchedGpu> untouched = new ArrayList<>();
    List<GpuResolution.Configured> migGpus = List.of();
    if (rollout.migConfig() != null) {
      MigResolution resolution =
          migResolver.resolve(rollout.migConfig(), node.gpus().stream().map(NodeGpu::of).toList());
      if (!resolution.invalid().isEmpty()) {
        return excluded(
            node,
            ExclusionReason.LAYOUT_INVALID,
            resolution.invalid().stream()
                .flatMap(i -> i.errors().stream().map(e -> "GPU " + i.gpuIndex() + ": " + e))
                .collect(Collectors.joining("; ")));
      }
      // With a driver change as well, such a node still gets the driver; its GPUs stay as they are.
      if (resolution.configured().isEmpty() && rollout.driverVersion() == null) {
        return excluded(
            node,
            ExclusionReason.NO_MATCHING_GPU,
            "no entry of config '"
                + rollout.migConfig().name()
                + "' matches any of its GPUs "
                + node.gpus().stream().map(g -> g.index() + ":" + g.pciDeviceId()).toList());
      }
      resolution
          .unmatched()
          .forEach(u -> untouched.add(new UntouchedGpu(u.gpuIndex(), u.pciDeviceId(), u.reason())));
      migGpus = resolution.configured();
      Map<Integer, Gpu> byIndex =
          node.gpus().stream().collect(Collectors.toMap(Gpu::index, Function.identity()));
      for (GpuResolution.Configured wanted : migGpus) {
        gpuChange(byIndex.get(wanted.gpuIndex()), wanted, desiredGpu(node, wanted.gpuIndex()))
            .ifPresent(changes::add);
      }
    }
    DriverStep driver = null;
    if (rollout.driverVersion() != null
        && (!isCurrent(node.driver().currentDriverVersion(), rollout.driverVersion())
            || !desiredDriverIs(node, rollout.driverVersion()))) {
      List<GpuModel> models = models(node);
      switch (drivers.resolve(node.driver(), models, rollout.driverVersion())) {
        case DriverResolution.Unservable u -> {
          return excluded(node, ExclusionReason.DRIVER_CANNOT_SERVE, u.reason());
        }
        case DriverResolution.Resolved r ->
            driver =
                new DriverStep(
                    node.driver().currentDriverVersion(),
                    rollout.driverVersion().toString(),
                    r.artifact(),
                    r.artifact() instanceof DriverArtifact.OsImage);
      }
    }
    Optional<String> migDriverGap = migDriverGap(node, migGpus, rollout.driverVersion());
    if (migDriverGap.isPresent()) {
      return excluded(node, ExclusionReason.DRIVER_CANNOT_SERVE, migDriverGap.get());
    }
    if (changes.isEmpty() && driver == null) {
      return excluded(node, ExclusionReason.ALREADY_AT_TARGET, "nothing to change");
    }
    int vfs =
        driver != null
            ? node.gpus().stream().mapToInt(Gpu::vfsEnabled).sum()
            : changes.stream().mapToInt(GpuChange::vfsTouched).sum();
    return new NodeOutcome.Planned(
        new NodePlan(
            node.name(),
            node.hostKind(),
            zone,
            changes,
            untouched,
            driver,
            changes.stream().anyMatch(GpuChange::resetNeeded),
            vfs,
            node.pendingSpec(),
            node.gpus().size(),
            budgetLabels(node, rollout.spec().strategy())));
  }

  private static Map<String, String> budgetLabels(FleetNode node, RolloutStrategy strategy) {
    Map<String, String> out = new TreeMap<>();
    for (String key : strategy.maxGpusOfflinePer().keySet()) {
      String value = node.labels().get(key);
      if (value != null) {
        out.put(key, value);
      }
    }
    return out;
  }

  private static GpuSpec desiredGpu(FleetNode node, int index) {
    return node.desired() == null ? null : node.desired().gpu(index).orElse(null);
  }

  /** Whether the desired spec leaves the driver alone or already asks for the target. */
  private static boolean desiredDriverIs(FleetNode node, DriverVersion target) {
    NodeSpec desired = node.desired();
    return desired == null
        || desired.driverVersion() == null
        || isCurrent(desired.driverVersion(), target);
  }

  /** Whether the desired spec of a GPU asks for another MIG state than the one wanted. */
  private static boolean desiredDiffers(GpuSpec desired, GpuResolution.Configured wanted) {
    if (desired == null) {
      return false;
    }
    if (desired.migEnabled() != wanted.migEnabled()) {
      return true;
    }
    Map<String, Integer> wantedCounts = new TreeMap<>();
    profileCounts(wanted.placements()).forEach((p, n) -> wantedCounts.put(p, n.intValue()));
    return wanted.migEnabled() && !desired.instances().equals(wantedCounts);
  }

  private Optional<GpuChange> gpuChange(Gpu gpu, GpuResolution.Configured wanted, GpuSpec desired) {
    boolean enabledNow = gpu.migMode() == MigMode.ENABLED;
    boolean modeChange =
        gpu.migMode() != MigMode.UNSUPPORTED
            && (enabledNow != wanted.migEnabled() || gpu.migModePending() != gpu.migMode());
    boolean instancesChange =
        wanted.migEnabled()
            && !profileCounts(gpu.instances()).equals(profileCounts(wanted.placements()));
    boolean droppedInstances = !wanted.migEnabled() && !gpu.instances().isEmpty();
    if (!modeChange && !instancesChange && !droppedInstances && !desiredDiffers(desired, wanted)) {
      return Optional.empty();
    }
    // A model outside the catalogue: assume the reset is needed rather than promise it is not.
    boolean resetNeeded =
        modeChange && (wanted.model() == null || wanted.model().migModeChangeNeedsReset());
    String model = wanted.model() == null ? gpu.pciDeviceId() : wanted.model().shortName();
    return Optional.of(
        new GpuChange(
            gpu.index(),
            model,
            gpu.migMode(),
            wanted.migEnabled(),
            gpu.instances(),
            wanted.placements(),
            resetNeeded,
            gpu.vfsEnabled()));
  }

  // MIG on some models needs a newer driver than the model itself (RTX PRO 6000: 575.51.03).
  private Optional<String> migDriverGap(
      FleetNode node, List<GpuResolution.Configured> migGpus, DriverVersion target) {
    String effective = target != null ? target.toString() : node.driver().currentDriverVersion();
    if (effective == null) {
      return Optional.empty();
    }
    DriverVersion version;
    try {
      version = DriverVersion.parse(effective);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    return migGpus.stream()
        .filter(g -> g.migEnabled() && g.model() != null && g.model().minDriverVersion() != null)
        .filter(g -> version.isOlderThan(DriverVersion.parse(g.model().minDriverVersion())))
        .findFirst()
        .map(
            g ->
                "MIG on "
                    + g.model().shortName()
                    + " needs driver >= "
                    + g.model().minDriverVersion()
                    + ", the node would run "
                    + version);
  }

  private static boolean isCurrent(String current, DriverVersion target) {
    if (current == null) {
      return false;
    }
    try {
      return DriverVersion.parse(current).equals(target);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private List<GpuModel> models(FleetNode node) {
    return node.gpus().stream()
        .map(g -> catalog.find(g.pciDeviceId()))
        .flatMap(Optional::stream)
        .distinct()
        .toList();
  }

  private static Map<String, Long> profileCounts(List<GpuInstance> instances) {
    return instances.stream()
        .collect(Collectors.groupingBy(GpuInstance::profile, TreeMap::new, Collectors.counting()));
  }

  private static NodeOutcome excluded(FleetNode node, ExclusionReason reason, String detail) {
    return new NodeOutcome.Excluded(
        new ExcludedNode(node.name(), reason, Objects.requireNonNull(detail)));
  }
}
