package io.fleetwave.core.rollout.decide;

/**
 * The state of a stored rollout: {@code created} until the engine takes it up, then as folded from
 * its events on fleet.rollout-events.
 */
public enum RolloutState {
  CREATED("created", true),
  RUNNING("running", true),
  PAUSED("paused", true),
  ROLLING_BACK("rolling-back", true),
  COMPLETED("completed", false),
  ABORTED("aborted", false),
  ROLLED_BACK("rolled-back", false),
  /** A record of its log could not be folded; the status reason names the record and why. */
  FAILED("failed", false);

  /** The inactive states as an SQL list, e.g. for {@code state NOT IN ...}. */
  public static final String INACTIVE_SQL =
      java.util.Arrays.stream(values())
          .filter(state -> !state.active)
          .map(state -> "'" + state.wireName + "'")
          .collect(java.util.stream.Collectors.joining(", ", "(", ")"));

  private final String wireName;
  private final boolean active;

  RolloutState(String wireName, boolean active) {
    this.wireName = wireName;
    this.active = active;
  }

  public String wireName() {
    return wireName;
  }

  /** Whether the rollout holds its nodes: a node belongs to at most one active rollout. */
  public boolean active() {
    return active;
  }

  public static RolloutState fromWireName(String name) {
    for (RolloutState state : values()) {
      if (state.wireName.equals(name)) {
        return state;
      }
    }
    throw new IllegalArgumentException("unknown rollout state '" + name + "'");
  }
}
