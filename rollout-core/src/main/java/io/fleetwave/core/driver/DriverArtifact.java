package io.fleetwave.core.driver;

/**
 * How a node gets a driver version: what the rollout hands to the node (or to an OS upgrade). In
 * JSON (plans) each artifact carries its {@code kind} and a one-line {@code description}.
 */
public sealed interface DriverArtifact {
  String driverVersion();

  /** A one-line description for plans. */
  String describe();

  /**
   * A GPU Operator style driver container image.
   *
   * @param image full reference, e.g. {@code nvcr.io/nvidia/driver:580.95.05-ubuntu22.04}
   * @param precompiled whether the tag names a precompiled kernel build
   */
  record ContainerImage(String driverVersion, String image, String tag, boolean precompiled)
      implements DriverArtifact {
    @Override
    public String describe() {
      return (precompiled ? "precompiled driver container " : "driver container ") + image;
    }
  }

  /** A distribution package installed on a writable host. */
  record HostPackage(String driverVersion, String packageName, String packageVersion)
      implements DriverArtifact {
    @Override
    public String describe() {
      return "host package " + packageName + " " + packageVersion;
    }
  }

  /**
   * The driver comes with the OS image (Talos system extensions, COS): the node needs an OS upgrade
   * to an image carrying this driver, executed as an OsUpgradeRequested action, never by touching
   * kernel modules.
   */
  record OsImage(String driverVersion, String osId, String osVersion) implements DriverArtifact {
    @Override
    public String describe() {
      return "needs OS image with driver " + driverVersion + " (" + osId + " upgrade)";
    }
  }
}
