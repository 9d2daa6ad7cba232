package io.fleetwave.agent.hostclients;

import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.reset.NodeReboot;
import java.time.Duration;

/**
 * A node reboot through systemd (org.freedesktop.systemd1.Manager.Reboot), used by the targeted
 * reset only where the node's policy allows a reboot. Without systemd it refuses rather than guess
 * at another mechanism.
 */
public record SystemdReboot(HostFacts facts, Duration timeout) implements NodeReboot {
  @Override
  public void reboot(String reason) {
    if (!facts.os().systemd()) {
      throw new HostClientException(
          "cannot reboot the node ("
              + reason
              + "): no systemd on this host ("
              + facts.reasons().getOrDefault("systemd", "systemd=false")
              + ")");
    }
    try (SystemBus bus = SystemBus.connect(facts.resolve("/run/dbus/system_bus_socket"), timeout)) {
      bus.call(
          "Reboot",
          () -> {
            bus.connection()
                .getRemoteObject(
                    SystemdManager.BUS_NAME, SystemdManager.OBJECT_PATH, SystemdManager.class)
                .Reboot();
            return null;
          });
    }
  }
}
