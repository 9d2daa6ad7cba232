package io.fleetwave.events.rollout;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Whether a node is being moved to the rollout's change or back to where it was. */
public enum Phase {
  FORWARD("forward"),
  ROLLBACK("rollback");

  private final String wireName;

  Phase(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }

  @JsonCreator
  public static Phase fromWireName(String name) {
    for (Phase phase : values()) {
      if (phase.wireName.equals(name)) {
        return phase;
      }
    }
    throw new IllegalArgumentException(
        "unknown phase '" + name + "', expected forward or rollback");
  }
}
