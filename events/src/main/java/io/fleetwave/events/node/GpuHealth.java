package io.fleetwave.events.node;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Health of one GPU as the agent sees it (XID errors, ECC, retired pages folded into one word). */
public enum GpuHealth {
  HEALTHY("healthy"),
  DEGRADED("degraded"),
  FAILED("failed");

  private final String wireName;

  GpuHealth(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }

  @JsonCreator
  public static GpuHealth fromWireName(String name) {
    for (GpuHealth health : values()) {
      if (health.wireName.equals(name)) {
        return health;
      }
    }
    throw new IllegalArgumentException("unknown GPU health '" + name + "'");
  }
}
