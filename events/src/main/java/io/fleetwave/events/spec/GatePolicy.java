package io.fleetwave.events.spec;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** How a node's device-plugin gate follows its spec (hardware-model.md rule 6). */
public enum GatePolicy {
  /**
   * Held from boot and while the spec is being applied; released once, when every GPU matches the
   * spec. The normal case: the device plugin scans once, so it must only see the final devices.
   */
  HOLD_UNTIL_APPLIED("hold-until-applied"),
  /** Never held by a spec change (nodes whose device plugin rescans by itself). */
  OPEN("open");

  private final String wireName;

  GatePolicy(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }

  @JsonCreator
  public static GatePolicy fromWireName(String name) {
    for (GatePolicy policy : values()) {
      if (policy.wireName.equals(name)) {
        return policy;
      }
    }
    throw new IllegalArgumentException(
        "unknown gate policy '" + name + "', expected hold-until-applied or open");
  }
}
