package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;

/**
 * Nodes start again. Failures so far are accepted: the thresholds count failures after this.
 *
 * <p>v2: {@code actor} is who decided it: the token subject of the operator who asked, or {@link
 * RolloutEvent#SYSTEM} for the engine's own decisions (v1 events read as {@link
 * RolloutEvent#UNKNOWN_ACTOR}).
 *
 * @param reason why, as the operator said it (may be null)
 */
public record RolloutResumed(String reason, String actor) implements RolloutEvent {
  public RolloutResumed {
    notBlank(actor, "actor");
  }
}
