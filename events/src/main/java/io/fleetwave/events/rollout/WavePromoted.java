package io.fleetwave.events.rollout;

import static io.fleetwave.events.node.Require.positive;

/** With manual promotion: somebody let the wave after {@code wave} start. */
public record WavePromoted(int wave) implements RolloutEvent {
  public WavePromoted {
    positive(wave, "wave");
  }
}
