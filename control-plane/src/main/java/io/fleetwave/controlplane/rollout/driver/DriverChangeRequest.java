package io.fleetwave.controlplane.rollout.driver;

import io.fleetwave.controlplane.driver.DriverArtifact;
import io.fleetwave.events.node.HostKind;
import java.util.UUID;

/** One node's driver change, handed to the configured executor. */
public record DriverChangeRequest(
    String id,
    UUID rolloutId,
    String node,
    HostKind hostKind,
    String fromVersion,
    DriverArtifact artifact) {
  public boolean osUpgrade() {
    return artifact instanceof DriverArtifact.OsImage;
  }
}
