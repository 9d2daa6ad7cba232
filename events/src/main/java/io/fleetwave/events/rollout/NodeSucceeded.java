package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNegative;
import static io.fleetwave.events.payload.Require.notNull;
import static io.fleetwave.events.payload.Require.positive;

/** The node reached its spec (and driver) and is healthy. */
public record NodeSucceeded(int wave, String node, Phase phase, long elapsedMillis)
    implements RolloutEvent {
  public NodeSucceeded {
    positive(wave, "wave");
    notBlank(node, "node");
    notNull(phase, "phase");
    notNegative(elapsedMillis, "elapsedMillis");
  }
}
