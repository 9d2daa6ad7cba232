package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;

/**
 * The rollout stops for good and frees its nodes; nodes already sent their spec keep it. Terminal.
 *
 * <p>v2: {@code actor} is who decided it: the token subject of the operator who asked, or {@link
 * RolloutEvent#SYSTEM} for the engine's own decisions (v1 events read as {@link
 * RolloutEvent#UNKNOWN_ACTOR}).
 */
public record RolloutAborted(String reason, String actor) implements RolloutEvent {
  public RolloutAborted {
    notBlank(reason, "reason");
    notBlank(actor, "actor");
  }
}
