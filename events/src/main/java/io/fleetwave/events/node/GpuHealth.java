package io.fleetwave.events.node;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.fleetwave.events.json.WireNamed;

/** Health of one GPU as the agent sees it (XID errors, ECC, retired pages folded into one word). */
public enum GpuHealth implements WireNamed {
  HEALTHY,
  DEGRADED,
  FAILED;

  @JsonCreator
  public static GpuHealth fromWireName(String name) {
    return WireNamed.parse(GpuHealth.class, name, "GPU health");
  }
}
