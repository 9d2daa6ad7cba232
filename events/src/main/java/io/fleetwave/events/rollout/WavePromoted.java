package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.positive;

/**
 * With manual promotion: somebody let the wave after {@code wave} start.
 *
 * <p>v2: {@code actor} is who decided it: the token subject of the operator who asked, or {@link
 * RolloutEvent#SYSTEM} for the engine's own decisions (v1 events read as {@link
 * RolloutEvent#UNKNOWN_ACTOR}).
 */
public record WavePromoted(int wave, String actor) implements RolloutEvent {
  public WavePromoted {
    positive(wave, "wave");
    notBlank(actor, "actor");
  }
}
