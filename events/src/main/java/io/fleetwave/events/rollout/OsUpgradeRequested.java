package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;

/**
 * The node's driver comes with its OS image (Talos, COS): an upgrade to an image carrying {@code
 * driverVersion} was handed to the configured executor. Fleetwave never touches such a node's
 * kernel modules; the node succeeds once it reboots reporting that version.
 */
public record OsUpgradeRequested(
    String node, String requestId, String driverVersion, String osId, String osVersion)
    implements RolloutEvent {
  public OsUpgradeRequested {
    notBlank(node, "node");
    notBlank(requestId, "requestId");
    notBlank(driverVersion, "driverVersion");
    notBlank(osId, "osId");
  }
}
