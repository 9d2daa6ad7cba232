package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RolloutEvent;

/**
 * What the decider wants next: an event to append, or a node to start (the engine adds the spec).
 */
public sealed interface Decision {
  record Append(RolloutEvent event) implements Decision {}

  record Start(String node, int wave, Phase phase) implements Decision {}

  /** A request that does not apply to the rollout as it stands, with the reason. */
  record Refuse(long requestId, String reason) implements Decision {}

  /** A request that was turned into the events decided with it. */
  record Handled(long requestId) implements Decision {}
}
