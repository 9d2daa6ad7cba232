package io.fleetwave.events.node;

import io.fleetwave.events.json.WireNamed;

/** The kinds of host Fleetwave supports; none is the default case. */
@WireNamed.Called("host kind")
public enum HostKind implements WireNamed {
  UBUNTU,
  UBUNTU_DRIVER_CONTAINER,
  TALOS,
  COS,
  VGPU_HOST;

  @Override
  public String toString() {
    return wireName();
  }
}
