package io.fleetwave.controlplane.rollout.store;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The state of a stored rollout. Only {@code created} and {@code aborted} are reached so far: the
 * execution engine (waves running) is not built yet and will add the others.
 */
public enum RolloutState {
  CREATED("created", true),
  RUNNING("running", true),
  PAUSED("paused", true),
  ROLLING_BACK("rolling-back", true),
  COMPLETED("completed", false),
  ABORTED("aborted", false),
  ROLLED_BACK("rolled-back", false);

  private final String wireName;
  private final boolean active;

  RolloutState(String wireName, boolean active) {
    this.wireName = wireName;
    this.active = active;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }

  /** Whether the rollout holds its nodes: a node belongs to at most one active rollout. */
  public boolean active() {
    return active;
  }

  @JsonCreator
  public static RolloutState fromWireName(String name) {
    for (RolloutState state : values()) {
      if (state.wireName.equals(name)) {
        return state;
      }
    }
    throw new IllegalArgumentException("unknown rollout state '" + name + "'");
  }
}
