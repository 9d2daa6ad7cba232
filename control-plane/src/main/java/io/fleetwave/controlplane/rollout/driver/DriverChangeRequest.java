package io.fleetwave.controlplane.rollout.driver;

import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.events.node.HostKind;
import java.util.Objects;
import java.util.UUID;

/**
 * One node's driver change, as the rollout engine hands it to a {@link DriverChangeExecutor}.
 *
 * @param id idempotency key chosen by the engine (e.g. {@code <rolloutId>:<node>:<generation>}): a
 *     request repeated with the same id (the engine resumed after a crash) must be harmless, so
 *     every executor passes it on
 * @param fromVersion the driver the node runs now, or null when it runs none
 * @param artifact how the node gets the new driver; its version is {@link #toVersion()}
 */
public record DriverChangeRequest(
    String id,
    UUID rolloutId,
    String node,
    HostKind hostKind,
    String fromVersion,
    DriverArtifact artifact) {

  public DriverChangeRequest {
    Objects.requireNonNull(id, "id");
    if (id.isBlank()) {
      throw new IllegalArgumentException("a driver change request needs a non-blank id");
    }
    Objects.requireNonNull(rolloutId, "rolloutId");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(hostKind, "hostKind");
    Objects.requireNonNull(artifact, "artifact");
  }

  /** The driver version the node is to run. */
  public String toVersion() {
    return artifact.driverVersion();
  }

  /** True when the driver comes with the OS image (Talos, COS): the change is an OS upgrade. */
  public boolean osUpgrade() {
    return artifact instanceof DriverArtifact.OsImage;
  }
}
