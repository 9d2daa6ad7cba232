package io.fleetwave.core.rollout.decide;

import io.fleetwave.core.rollout.plan.GpuChange;
import io.fleetwave.core.rollout.plan.NodePlan;
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
 * What a node had before a rollout changed it, as the decider records it in {@code NodeStarted}:
 * pure, so the decider stays in the pure core (the spec requests built from it are the adapter's).
 */
public final class RestorePoints {
  private RestorePoints() {}

  /** What the node had: its desired spec where it has one, else what the plan observed. */
  public static RestorePoint of(NodePlan plan, NodeSpec desired) {
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

  /** Instances per profile name. */
  public static Map<String, Integer> counts(List<GpuInstance> instances) {
    Map<String, Integer> counts = new TreeMap<>();
    for (GpuInstance instance : instances) {
      counts.merge(instance.profile(), 1, Integer::sum);
    }
    return counts;
  }
}
