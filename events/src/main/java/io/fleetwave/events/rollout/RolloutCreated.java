package io.fleetwave.events.rollout;

import static io.fleetwave.events.node.Require.notBlank;
import static io.fleetwave.events.node.Require.notNull;

import java.util.List;

/**
 * A rollout was created: the nodes of each wave, canary first, fixed for its whole life. What each
 * node gets is in the plan stored with the rollout.
 *
 * @param waves node names per wave, in the order the plan runs them
 */
public record RolloutCreated(String name, List<List<String>> waves) implements RolloutEvent {
  public RolloutCreated {
    notBlank(name, "name");
    notNull(waves, "waves");
    waves = waves.stream().map(List::copyOf).toList();
    if (waves.isEmpty()) {
      throw new IllegalArgumentException("field 'waves' must not be empty");
    }
  }
}
