package io.fleetwave.core.rollout.plan;

import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.spec.NodeSpec;
import java.util.List;
import java.util.Map;

/**
 * Exactly what a rollout does to one node.
 *
 * @param zone the failure domain the node counts against
 * @param gpuChanges MIG changes, by GPU index
 * @param untouchedGpus GPUs that keep their state, with the reason
 * @param driver the driver change, or null when the driver stays
 * @param resetNeeded whether any GPU needs a reset
 * @param vfsTouched enabled VFs the change disturbs (all of the node's for a driver change)
 * @param pendingSpec the desired spec the node has not applied yet (a change pending: where it is
 *     going, while the GPU changes show where it is), or null when it has applied its spec
 * @param gpus the node's GPUs: all of them are offline while it is out of service ({@link
 *     GpuBudget}); 0 in plans logged before GPU budgets
 * @param budgetLabels the node's values of the labels the strategy bounds per value
 *     (maxGpusOfflinePer), so the budget holds from the logged plan alone
 */
public record NodePlan(
    String node,
    HostKind hostKind,
    String zone,
    List<GpuChange> gpuChanges,
    List<UntouchedGpu> untouchedGpus,
    DriverStep driver,
    boolean resetNeeded,
    int vfsTouched,
    NodeSpec pendingSpec,
    int gpus,
    Map<String, String> budgetLabels) {
  public NodePlan {
    gpuChanges = List.copyOf(gpuChanges);
    untouchedGpus = List.copyOf(untouchedGpus);
    budgetLabels = budgetLabels == null ? Map.of() : Map.copyOf(budgetLabels);
  }
}
