package io.fleetwave.core.rollout.plan;

/**
 * When failures stop a rollout.
 *
 * @param perWave failed nodes tolerated within one wave, as a count or a share of the wave
 * @param total failed nodes tolerated over the rollout, as a count or a share of its nodes
 * @param action what happens when one is crossed (pause by default)
 */
public record FailureThreshold(String perWave, String total, FailureAction action) {
  public FailureThreshold {
    perWave = perWave == null ? "0" : perWave;
    total = total == null ? "0" : total;
    action = action == null ? FailureAction.PAUSE : action;
  }

  public static FailureThreshold defaults() {
    return new FailureThreshold(null, null, null);
  }
}
