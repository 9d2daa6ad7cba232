package io.fleetwave.agent.hostclients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.probe.HostProbe;
import io.fleetwave.agent.probe.HostProbeSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Host GPU clients over a real dbus-daemon with a stand-in systemd on it. */
class HostGpuClientsIT {
  @TempDir Path dir;

  private HostFacts ubuntuFacts() {
    new HostTree(dir)
        .osRelease("ubuntu", "22.04")
        .kernel("5.15.0")
        .mountinfo(HostTree.RW_ROOT_MOUNTINFO)
        .driver("/", "lib64")
        .dir("run/systemd/system");
    return new HostProbe(HostProbeSettings.detectAll(dir)).probe();
  }

  @Test
  void activeUnitsAreStoppedAndStartedAgainOverDbus() throws Exception {
    try (PrivateBus bus = PrivateBus.start(dir.resolve("run/dbus/system_bus_socket"));
        FakeSystemd systemd =
            new FakeSystemd(
                bus.address(),
                Map.of(
                    "nvidia-persistenced.service", "active", "nvidia-dcgm.service", "inactive"))) {
      HostFacts facts = ubuntuFacts();
      assertThat(facts.os().systemd()).isTrue();
      HostGpuClients clients =
          new HostGpuClients(facts, HostGpuClients.DEFAULT_UNITS, Duration.ofSeconds(3));

      ClientsResult stopped = clients.stop();

      assertThat(stopped.done()).containsExactly("nvidia-persistenced.service");
      assertThat(stopped.notRunning())
          .containsExactly(
              "nvidia-dcgm.service (inactive)",
              "dcgm-exporter.service (not loaded)",
              "nvidia-fabricmanager.service (not loaded)");
      assertThat(stopped.warnings()).isEmpty();
      assertThat(systemd.state("nvidia-persistenced.service")).isEqualTo("inactive");

      ClientsResult started = clients.start(stopped.done());
      assertThat(started.done()).containsExactly("nvidia-persistenced.service");
      assertThat(systemd.state("nvidia-persistenced.service")).isEqualTo("active");
      assertThat(systemd.calls())
          .contains("stop nvidia-persistenced.service", "start nvidia-persistenced.service");
      assertThat(systemd.calls()).doesNotContain("stop nvidia-dcgm.service");
    }
  }

  @Test
  void aJobThatNeverFinishesEndsWithinTheBound() throws Exception {
    try (PrivateBus bus = PrivateBus.start(dir.resolve("run/dbus/system_bus_socket"));
        FakeSystemd systemd =
            new FakeSystemd(bus.address(), Map.of("nvidia-persistenced.service", "active"))) {
      systemd.hangJobsOf("nvidia-persistenced.service");
      HostGpuClients clients =
          new HostGpuClients(
              ubuntuFacts(), List.of("nvidia-persistenced.service"), Duration.ofSeconds(1));

      long start = System.nanoTime();
      assertThatThrownBy(clients::stop)
          .isInstanceOf(HostClientException.class)
          .hasMessage("stop nvidia-persistenced.service: systemd did not finish the job within 1s");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
    }
  }

  @Test
  void aPolicyAllowedRebootGoesToSystemdOverDbus() throws Exception {
    try (PrivateBus bus = PrivateBus.start(dir.resolve("run/dbus/system_bus_socket"));
        FakeSystemd systemd = new FakeSystemd(bus.address(), Map.of())) {
      new SystemdReboot(ubuntuFacts(), Duration.ofSeconds(3)).reboot("targeted reset impossible");
      assertThat(systemd.calls()).containsExactly("reboot");
    }
  }

  @Test
  void withoutSystemdARebootIsRefusedWithTheReason() {
    HostTree.talos(dir).driver("/usr/local", "lib64");
    HostFacts facts = new HostProbe(HostProbeSettings.detectAll(dir)).probe();
    assertThatThrownBy(() -> new SystemdReboot(facts, Duration.ofSeconds(3)).reboot("reset failed"))
        .hasMessage(
            "cannot reboot the node (reset failed): no systemd on this host (systemd=false: run/systemd/system absent)");
  }

  @Test
  void withoutSystemdNothingIsTouchedAndAWarningIsReturned() throws Exception {
    HostTree.talos(dir).driver("/usr/local", "lib64");
    HostFacts facts = new HostProbe(HostProbeSettings.detectAll(dir)).probe();
    List<Path> before;
    try (Stream<Path> walk = Files.walk(dir)) {
      before = walk.toList();
    }

    ClientsResult result =
        new HostGpuClients(facts, HostGpuClients.DEFAULT_UNITS, Duration.ofSeconds(3)).stop();

    assertThat(result.done()).isEmpty();
    assertThat(result.warnings())
        .containsExactly(
            "no systemd on this host (systemd=false: run/systemd/system absent): host GPU clients not stopped:"
                + " nvidia-persistenced.service, nvidia-dcgm.service, dcgm-exporter.service, nvidia-fabricmanager.service");
    try (Stream<Path> walk = Files.walk(dir)) {
      assertThat(walk.toList()).containsExactlyInAnyOrderElementsOf(before);
    }
  }
}
