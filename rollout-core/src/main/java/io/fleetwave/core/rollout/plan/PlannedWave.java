package io.fleetwave.core.rollout.plan;

import java.util.List;

/**
 * One wave of a plan.
 *
 * @param number 1-based position among the plan's waves
 * @param waveSpec the strategy entry it comes from, e.g. {@code "10%"}
 * @param canary whether this is the first wave
 * @param cumulativeNodes nodes done once this wave completes
 * @param batches its nodes in order, batch by batch
 */
public record PlannedWave(
    int number, String waveSpec, boolean canary, int cumulativeNodes, List<NodeBatch> batches) {
  public PlannedWave {
    batches = List.copyOf(batches);
  }

  public List<NodePlan> nodes() {
    return batches.stream().flatMap(b -> b.nodes().stream()).toList();
  }
}
