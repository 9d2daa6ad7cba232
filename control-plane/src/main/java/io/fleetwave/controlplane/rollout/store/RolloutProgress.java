package io.fleetwave.controlplane.rollout.store;

import java.util.List;
import java.util.Map;

/**
 * Where a rollout stands, from the projection of its events.
 *
 * @param currentWave the newest started wave, 0 before the first
 * @param awaitingPromotion the current wave finished and waits for POST .../promote
 * @param statusReason why it is paused, rolling back, aborted or rolled back
 * @param counts nodes per state ("pending", "in-flight", "succeeded", "failed"), of all nodes
 * @param waves per-node states, of at most RolloutFullView.FULL_VIEW_NODES nodes
 * @param nodesTruncated waves lists only some of the nodes (GET .../nodes pages through all)
 */
public record RolloutProgress(
    long lastSeq,
    int currentWave,
    boolean awaitingPromotion,
    String statusReason,
    Map<String, Integer> counts,
    List<Wave> waves,
    boolean nodesTruncated) {

  /** A wave's nodes as GET .../nodes lists them (each also says its wave). */
  public record Wave(int number, List<RolloutNodeView> nodes) {}
}
