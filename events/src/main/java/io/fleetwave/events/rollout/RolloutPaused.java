package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;

/**
 * No node starts until it is resumed; nodes in flight still finish.
 *
 * @param reason a failure threshold crossed (naming the nodes) or an operator's request
 *     <p>v2: {@code actor} is who decided it: the token subject of the operator who asked, or
 *     {@link RolloutEvent#SYSTEM} for the engine's own decisions (v1 events read as {@link
 *     RolloutEvent#UNKNOWN_ACTOR}).
 */
public record RolloutPaused(String reason, String actor) implements RolloutEvent {
  public RolloutPaused {
    notBlank(reason, "reason");
    notBlank(actor, "actor");
  }
}
