package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.positive;

/** Wave {@code wave} (1 = the canary) may start nodes. */
public record WaveStarted(int wave) implements RolloutEvent {
  public WaveStarted {
    positive(wave, "wave");
  }
}
