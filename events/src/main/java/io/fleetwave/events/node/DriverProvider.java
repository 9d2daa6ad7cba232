package io.fleetwave.events.node;

import io.fleetwave.events.json.WireNamed;

/** How the NVIDIA driver reaches a node, which decides how a driver version can change. */
@WireNamed.Called("driver provider")
public enum DriverProvider implements WireNamed {
  /** A distribution package on a writable host. */
  HOST_PACKAGE,
  /** A driver container that loads and unloads kernel modules (GPU Operator style). */
  DRIVER_CONTAINER,
  /** Shipped with an immutable OS image (Talos extensions, COS): changes need a new OS image. */
  OS_IMAGE,
  /** No driver found. */
  NONE;
}
