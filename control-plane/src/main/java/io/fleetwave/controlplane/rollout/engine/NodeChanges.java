package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.controlplane.rollout.plan.GpuChange;
import io.fleetwave.controlplane.rollout.plan.NodePlan;
import io.fleetwave.controlplane.spec.SpecRequest;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.rollout.RestorePoint;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The spec requests a rollout sends: forward from the node's plan, back from its restore point.
 * Only the GPUs the plan changes are named, and only MIG fields: everything else (VFs, vGPU types,
 * other GPUs) keeps its desired value.
 */
final class NodeChanges {
  private NodeChanges() {}

  static SpecRequest forward(NodePlan plan) {
    List<SpecRequest.Gpu> gpus = new ArrayList<>();
    for (GpuChange change : plan.gpuChanges()) {
      gpus.add(gpu(change.gpuIndex(), change.toMigEnabled(), counts(change.to())));
    }
    return new SpecRequest(
        plan.driver() == null ? null : plan.driver().toVersion(), null, List.copyOf(gpus));
  }

  static SpecRequest back(NodePlan plan, RestorePoint restore) {
    List<SpecRequest.Gpu> gpus = new ArrayList<>();
    for (GpuSpec gpu : restore.gpus()) {
      gpus.add(gpu(gpu.index(), gpu.migEnabled(), gpu.instances()));
    }
    String driver = plan.driver() == null ? null : restore.driverVersion();
    return new SpecRequest(driver, null, List.copyOf(gpus));
  }

  /** What the node had: its desired spec where it has one, else what the plan observed. */
  static RestorePoint restorePoint(NodePlan plan, NodeSpec desired) {
    List<GpuSpec> gpus = new ArrayList<>();
    for (GpuChange change : plan.gpuChanges()) {
      GpuSpec wanted = desired == null ? null : desired.gpu(change.gpuIndex()).orElse(null);
      gpus.add(
          wanted != null
              ? wanted
              : new GpuSpec(
                  change.gpuIndex(),
                  change.fromMode() == MigMode.ENABLED,
                  counts(change.from()),
                  0,
                  null));
    }
    String driver =
        desired != null && desired.driverVersion() != null
            ? desired.driverVersion()
            : plan.driver() == null ? null : plan.driver().fromVersion();
    return new RestorePoint(driver, gpus);
  }

  private static SpecRequest.Gpu gpu(int index, boolean mig, Map<String, Integer> instances) {
    return new SpecRequest.Gpu(index, mig, mig ? instances : Map.of(), null, null);
  }

  private static Map<String, Integer> counts(List<GpuInstance> instances) {
    Map<String, Integer> counts = new TreeMap<>();
    for (GpuInstance instance : instances) {
      counts.merge(instance.profile(), 1, Integer::sum);
    }
    return counts;
  }
}
