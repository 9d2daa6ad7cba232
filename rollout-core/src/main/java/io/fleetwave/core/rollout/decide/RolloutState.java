package io.fleetwave.core.rollout.decide;

import io.fleetwave.events.json.WireNamed;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The state of a stored rollout: {@code created} until the engine takes it up, then as folded from
 * its events on fleet.rollout-events.
 */
@WireNamed.Called("rollout state")
public enum RolloutState implements WireNamed {
  CREATED(true),
  RUNNING(true),
  PAUSED(true),
  ROLLING_BACK(true),
  COMPLETED(false),
  ABORTED(false),
  ROLLED_BACK(false),
  /** A record of its log could not be folded; the status reason names the record and why. */
  FAILED(false);

  /** The inactive states as an SQL list, e.g. for {@code state NOT IN ...}. */
  public static final String INACTIVE_SQL =
      Arrays.stream(values())
          .filter(state -> !state.active)
          .map(state -> "'" + state.wireName() + "'")
          .collect(Collectors.joining(", ", "(", ")"));

  private final boolean active;

  RolloutState(boolean active) {
    this.active = active;
  }

  /** Whether the rollout holds its nodes: a node belongs to at most one active rollout. */
  public boolean active() {
    return active;
  }
}
