package io.fleetwave.events.node;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** MIG mode of one GPU; {@code UNSUPPORTED} for GPUs that are not MIG capable. */
public enum MigMode {
  ENABLED("enabled"),
  DISABLED("disabled"),
  UNSUPPORTED("unsupported");

  private final String wireName;

  MigMode(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }

  @JsonCreator
  public static MigMode fromWireName(String name) {
    for (MigMode mode : values()) {
      if (mode.wireName.equals(name)) {
        return mode;
      }
    }
    throw new IllegalArgumentException("unknown MIG mode '" + name + "'");
  }
}
