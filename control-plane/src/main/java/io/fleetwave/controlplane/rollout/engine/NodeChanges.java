package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.controlplane.spec.SpecRequest;
import io.fleetwave.core.rollout.decide.RestorePoints;
import io.fleetwave.core.rollout.plan.GpuChange;
import io.fleetwave.core.rollout.plan.NodePlan;
import io.fleetwave.events.rollout.RestorePoint;
import io.fleetwave.events.spec.GpuSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
      gpus.add(gpu(change.gpuIndex(), change.toMigEnabled(), RestorePoints.counts(change.to())));
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

  private static SpecRequest.Gpu gpu(int index, boolean mig, Map<String, Integer> instances) {
    return new SpecRequest.Gpu(index, mig, mig ? instances : Map.of(), null, null);
  }
}
