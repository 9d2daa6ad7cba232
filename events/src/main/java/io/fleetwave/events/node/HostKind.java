package io.fleetwave.events.node;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.fleetwave.events.json.WireNamed;

/** The kinds of host Fleetwave supports; none is the default case. */
public enum HostKind implements WireNamed {
  UBUNTU,
  UBUNTU_DRIVER_CONTAINER,
  TALOS,
  COS,
  VGPU_HOST;

  @JsonCreator
  public static HostKind fromWireName(String name) {
    return WireNamed.parse(HostKind.class, name, "host kind");
  }

  @Override
  public String toString() {
    return wireName();
  }
}
