package io.fleetwave.events.node;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** How the NVIDIA driver reaches a node, which decides how a driver version can change. */
public enum DriverProvider {
  /** A distribution package on a writable host. */
  HOST_PACKAGE("host-package"),
  /** A driver container that loads and unloads kernel modules (GPU Operator style). */
  DRIVER_CONTAINER("driver-container"),
  /** Shipped with an immutable OS image (Talos extensions, COS): changes need a new OS image. */
  OS_IMAGE("os-image"),
  /** No driver found. */
  NONE("none");

  private final String wireName;

  DriverProvider(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }

  @JsonCreator
  public static DriverProvider fromWireName(String name) {
    for (DriverProvider provider : values()) {
      if (provider.wireName.equals(name)) {
        return provider;
      }
    }
    throw new IllegalArgumentException("unknown driver provider '" + name + "'");
  }
}
