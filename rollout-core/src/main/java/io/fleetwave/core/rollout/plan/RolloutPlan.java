package io.fleetwave.core.rollout.plan;

import java.util.List;

/**
 * The full plan of a rollout, shown by a dry run and followed by the engine.
 *
 * @param plannedNodes nodes in the waves
 * @param maxUnavailableNodes maxUnavailable resolved against the planned nodes (at least 1)
 * @param maxZonesInFlight the zone limit, or null for none
 * @param waves canary first; a wave the strategy lists but that adds no node is left out
 * @param excluded targeted nodes left out, with reasons, sorted by node name
 * @param capacity per GPU model, sorted by model
 * @param forecasts per wave, the GPUs offline at once and its expected duration
 */
public record RolloutPlan(
    String name,
    RolloutChange change,
    RolloutStrategy strategy,
    int plannedNodes,
    int maxUnavailableNodes,
    Integer maxZonesInFlight,
    List<PlannedWave> waves,
    List<ExcludedNode> excluded,
    List<CapacityImpact> capacity,
    List<WaveForecast> forecasts) {
  public RolloutPlan {
    waves = List.copyOf(waves);
    excluded = List.copyOf(excluded);
    capacity = List.copyOf(capacity);
    // Absent from plans logged before forecasts.
    forecasts = forecasts == null ? List.of() : List.copyOf(forecasts);
  }
}
