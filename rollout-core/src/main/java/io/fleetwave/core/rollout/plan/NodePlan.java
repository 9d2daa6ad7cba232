package io.fleetwave.core.rollout.plan;

import io.fleetwave.events.node.HostKind;
import java.util.List;

/**
 * Exactly what a rollout does to one node.
 *
 * @param zone the failure domain the node counts against
 * @param gpuChanges MIG changes, by GPU index
 * @param untouchedGpus GPUs that keep their state, with the reason
 * @param driver the driver change, or null when the driver stays
 * @param resetNeeded whether any GPU needs a reset
 * @param vfsTouched enabled VFs the change disturbs (all of the node's for a driver change)
 */
public record NodePlan(
    String node,
    HostKind hostKind,
    String zone,
    List<GpuChange> gpuChanges,
    List<UntouchedGpu> untouchedGpus,
    DriverStep driver,
    boolean resetNeeded,
    int vfsTouched) {
  public NodePlan {
    gpuChanges = List.copyOf(gpuChanges);
    untouchedGpus = List.copyOf(untouchedGpus);
  }
}
