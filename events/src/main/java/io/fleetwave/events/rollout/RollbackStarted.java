package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;

/**
 * Every node the rollout touched goes back to its restore point, newest wave first, at most
 * maxUnavailable at a time.
 *
 * <p>v2: {@code actor} is who decided it: the token subject of the operator who asked, or {@link
 * RolloutEvent#SYSTEM} for the engine's own decisions (v1 events read as {@link
 * RolloutEvent#UNKNOWN_ACTOR}).
 */
public record RollbackStarted(String reason, String actor) implements RolloutEvent {
  public RollbackStarted {
    notBlank(reason, "reason");
    notBlank(actor, "actor");
  }
}
