package io.fleetwave.controlplane.rollout.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.core.rollout.decide.RolloutState;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A rollout without its per-node data: what a page or a watcher polls. Its size grows with the
 * number of waves, never with the number of nodes (the request's target, which may list nodes, and
 * the plan are left out; GET /api/v1/rollouts/{id} has them).
 *
 * @param actor who created it (the token subject)
 * @param change the request's change (migConfig, driverVersion, osImage ...)
 * @param strategy the request's strategy (waves, maxUnavailable, thresholds ...)
 * @param currentWave the newest started wave, 0 before the first
 * @param awaitingPromotion the current wave finished and waits for POST .../promote
 * @param pausedBy while paused: who paused it ("system" for a failure threshold, else the
 *     operator's token subject); null otherwise
 * @param statusReason why it is paused, rolling back, aborted, rolled back or failed
 * @param counts nodes per state ("pending", "in-flight", "succeeded", "failed"), every state listed
 * @param failures nodes whose change failed (in either phase)
 */
public record RolloutOverview(
    UUID id,
    String name,
    RolloutState state,
    String actor,
    JsonNode change,
    JsonNode strategy,
    Instant createdAt,
    Instant updatedAt,
    long lastSeq,
    int currentWave,
    boolean awaitingPromotion,
    String pausedBy,
    String statusReason,
    int plannedNodes,
    Map<String, Integer> counts,
    int failures,
    List<Wave> waves) {

  /**
   * @param index 1 = the canary
   * @param nodes planned nodes of the wave
   * @param counts its nodes per state, every state listed
   * @param startedAt when the wave started (WaveStarted), null before
   * @param finishedAt when every node of the wave had finished (WaveCompleted), null before
   */
  public record Wave(
      int index, int nodes, Map<String, Integer> counts, Instant startedAt, Instant finishedAt) {}
}
