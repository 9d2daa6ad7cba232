package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notNegative;
import static io.fleetwave.events.payload.Require.positive;

/** Every node of the wave finished; its soak starts now. */
public record WaveCompleted(int wave, int succeeded, int failed) implements RolloutEvent {
  public WaveCompleted {
    positive(wave, "wave");
    notNegative(succeeded, "succeeded");
    notNegative(failed, "failed");
  }
}
