package io.fleetwave.events.node;

import io.fleetwave.events.payload.Require;

/**
 * Liveness, on an interval.
 *
 * @param bootId the host's boot id, so a reboot is visible even without other events
 * @param uptimeSeconds agent uptime
 */
public record Heartbeat(String bootId, long uptimeSeconds) implements NodeEvent {
  public Heartbeat {
    Require.notBlank(bootId, "bootId");
  }
}
