package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;

/**
 * The node's new driver was handed to the configured driver executor (a driver container or a host
 * package); the node succeeds once it reports that version.
 *
 * @param requestId the executor's idempotency key
 * @param artifactKind container-image or host-package
 * @param artifact what exactly, e.g. {@code driver container nvcr.io/nvidia/driver:580...}
 */
public record DriverInstallRequested(
    String node, String requestId, String driverVersion, String artifactKind, String artifact)
    implements RolloutEvent {
  public DriverInstallRequested {
    notBlank(node, "node");
    notBlank(requestId, "requestId");
    notBlank(driverVersion, "driverVersion");
    notBlank(artifactKind, "artifactKind");
    notBlank(artifact, "artifact");
  }
}
