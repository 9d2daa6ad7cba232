package io.fleetwave.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.hostclients.PrivateBus;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.testsupport.network.SilentSocket;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The systemd check over real UNIX sockets: a real dbus-daemon, and a bus that never answers. */
class HostProbeSystemBusIT {
  @TempDir Path dir;

  private HostTree ubuntu() {
    return new HostTree(dir)
        .osRelease("ubuntu", "22.04")
        .kernel("5.15.0-119-generic")
        .hostname("gpu-node-3")
        .mountinfo(HostTree.RW_ROOT_MOUNTINFO)
        .driver("/", "usr/lib/x86_64-linux-gnu")
        .devices("/", 4)
        .dir("run/systemd/system");
  }

  @Test
  void ubuntuWithSystemdAnswersOnTheSystemBus() throws Exception {
    ubuntu();
    try (PrivateBus _ = PrivateBus.start(dir.resolve("run/dbus/system_bus_socket"))) {
      HostFacts facts = new HostProbe(HostProbeSettings.detectAll(dir)).probe();

      assertThat(facts.os().hostKind()).isEqualTo(HostKind.UBUNTU);
      assertThat(facts.os().systemd()).isTrue();
      assertThat(facts.os().readOnlyRoot()).isFalse();
      assertThat(facts.os().driverRoot()).isEqualTo("/");
      assertThat(facts.os().deviceRoot()).isEqualTo("/");
      assertThat(facts.os().driverProvider()).isEqualTo(DriverProvider.HOST_PACKAGE);
      assertThat(facts.reasons().get("systemd"))
          .matches(
              "systemd=true: run/systemd/system present; the system bus answered GetId \\([0-9a-f]{32}\\)");
      assertThat(facts.reasons())
          .containsEntry(
              "hostKind",
              "hostKind=ubuntu: os-release ID=ubuntu, no driver container, no SR-IOV capable NVIDIA PF")
          .containsEntry(
              "deviceRoot",
              "deviceRoot=/: found dev/nvidia0, dev/nvidia1, dev/nvidia2, dev/nvidia3, dev/nvidiactl");
    }
  }

  @Test
  @Timeout(20) // a regression must fail, not hang the build
  void aBusThatAcceptsAndNeverAnswersEndsWithinTheDefaultBound() throws Exception {
    ubuntu();
    try (SilentSocket silent = new SilentSocket(dir.resolve("run/dbus/system_bus_socket"))) {
      long start = System.nanoTime();
      HostFacts facts = new HostProbe(HostProbeSettings.detectAll(dir)).probe();
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(silent.acceptedConnections()).isEqualTo(1);
      assertThat(facts.os().systemd()).isFalse();
      assertThat(facts.reasons().get("systemd"))
          .startsWith("systemd=false: systemd unreachable: no reply on the system bus within 3s");
      assertThat(took).isBetween(Duration.ofMillis(2900), Duration.ofSeconds(6));
    }
  }

  @Test
  @Timeout(20)
  void theBusBoundIsConfigurable() throws Exception {
    ubuntu();
    try (SilentSocket _ = new SilentSocket(dir.resolve("run/dbus/system_bus_socket"))) {
      long start = System.nanoTime();
      HostFacts facts =
          new HostProbe(HostProbeSettings.detectAll(dir).withBusTimeout(Duration.ofMillis(500)))
              .probe();

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
      assertThat(facts.reasons().get("systemd"))
          .startsWith(
              "systemd=false: systemd unreachable: no reply on the system bus within 500ms");
    }
  }

  @Test
  void systemdDirectoryWithoutABusSocketIsNotSystemd() {
    ubuntu();
    HostFacts facts = new HostProbe(HostProbeSettings.detectAll(dir)).probe();
    assertThat(facts.os().systemd()).isFalse();
    assertThat(facts.reasons())
        .containsEntry(
            "systemd",
            "systemd=false: run/systemd/system present but run/dbus/system_bus_socket absent");
  }
}
