package io.fleetwave.controlplane.rollout.driver;

import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.events.node.HostKind;
import java.util.UUID;

/** Driver change requests of each artifact kind, for the executor tests. */
public final class DriverRequests {
  public static final UUID ROLLOUT = UUID.fromString("0b6f7d0e-4a55-4c1e-9d7a-6f1f5e2b9c01");

  private DriverRequests() {}

  public static DriverChangeRequest talos(String node) {
    return request(
        node,
        HostKind.TALOS,
        "570.172.08",
        new DriverArtifact.OsImage("580.95.05", "talos", "v1.10.6"));
  }

  public static DriverChangeRequest container(String node) {
    return request(
        node,
        HostKind.UBUNTU_DRIVER_CONTAINER,
        "570.172.08",
        new DriverArtifact.ContainerImage(
            "580.95.05",
            "nvcr.io/nvidia/driver:580.95.05-ubuntu22.04",
            "580.95.05-ubuntu22.04",
            false));
  }

  public static DriverChangeRequest hostPackage(String node) {
    return request(
        node,
        HostKind.UBUNTU,
        null,
        new DriverArtifact.HostPackage(
            "580.95.05", "nvidia-driver-580-server", "580.95.05-0ubuntu1"));
  }

  /** The rollout's first request to {@code node}: from the driver it runs to the artifact's. */
  private static DriverChangeRequest request(
      String node, HostKind kind, String fromVersion, DriverArtifact artifact) {
    return new DriverChangeRequest(
        ROLLOUT + ":" + node + ":1", ROLLOUT, node, kind, fromVersion, artifact);
  }
}
