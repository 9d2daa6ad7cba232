package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.nvml.StubNvmlLibrary;
import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.Topics;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.testsupport.kafka.NodeEventsReader;
import io.fleetwave.testsupport.services.KafkaExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The real agent started before the node's driver is there (a driver container still installing,
 * modules not loaded yet), as a separate JVM against a real broker: it does not die, registers with
 * the reason, heartbeats, and takes the GPUs up once the driver appears.
 */
@ExtendWith(KafkaExtension.class)
class AgentWithoutDriverIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static KafkaBroker kafka;

  @BeforeAll
  static void topics() {
    AgentHosts.createTopics(kafka);
  }

  @Test
  void probeOnlyWithoutADriverPrintsTheFactsAndWhyTheGpusAreNotReadyAndExitsZero()
      throws Exception {
    Path host = Files.createTempDirectory(Path.of("target"), "driverless-probe-").toAbsolutePath();
    HostTree.talos(host);
    Process agent = agent("--probe-only", "--host-root", host.toString());
    assertThat(agent.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    String out = new String(agent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(agent.exitValue()).as(out).isZero();
    assertThat(out)
        .contains(
            "NodeRegistered",
            "\"hostKind\" : \"talos\"",
            "GPUs not ready: no libnvidia-ml.so.1 under /run/nvidia/driver (driver container),"
                + " /home/kubernetes/bin/nvidia (COS), /usr/local (Talos system extension), /"
                + " (host install); looked in lib64, lib/x86_64-linux-gnu,")
        .doesNotContain("GpuInventoryReported", "Exception");
  }

  @Test
  void withoutADriverItRegistersWithTheReasonHeartbeatsAndTakesTheGpusUpWhenTheDriverAppears()
      throws Exception {
    String node = "driverless-1";
    Path host = Files.createTempDirectory(Path.of("target"), "driverless-host-").toAbsolutePath();
    new HostTree(host)
        .osRelease("ubuntu", "22.04")
        .kernel("5.15.0-91-generic")
        .hostname(node)
        .mountinfo(HostTree.RW_ROOT_MOUNTINFO)
        .bootId("d41e55-boot");
    CommandSigner signer = CommandSigner.generate();
    Path key = AgentHosts.publicKeyFile(signer);
    Path log = Files.createTempFile(Path.of("target"), "driverless-agent-", ".log");
    Process agent =
        agent(
            log,
            AgentProcess.heartbeating(
                kafka.bootstrapServers(),
                host,
                "--driver-retry-seconds",
                "1",
                "--public-key",
                key.toString()));
    try (NodeEventsReader events = events()) {
      await().atMost(WAIT).until(() -> events.of(node, Heartbeat.class).size() >= 3);

      NodeRegistered waiting = events.of(node, NodeRegistered.class).getFirst();
      assertThat(waiting.driverVersion()).isNull();
      assertThat(waiting.reasons().get("driverVersion"))
          .startsWith(
              "driverVersion=none: GPUs not ready: no libnvidia-ml.so.1 under /run/nvidia/driver"
                  + " (driver container), /home/kubernetes/bin/nvidia (COS), /usr/local (Talos"
                  + " system extension), / (host install)")
          .contains("usr/lib/x86_64-linux-gnu");
      assertThat(events.of(node, GpuInventoryReported.class)).isEmpty();
      assertThat(events.of(node, NodeBooted.class)).as("spec following before the GPUs").isEmpty();

      // The driver container comes up: its root appears with the library, the device nodes too.
      Path build = Files.createTempDirectory(Path.of("target"), "driver-build-");
      StubNvmlLibrary.build(build);
      Path libDir = host.resolve("run/nvidia/driver/usr/lib/x86_64-linux-gnu");
      Files.createDirectories(libDir);
      new HostTree(host).devices("/", 3);
      Files.move(
          build.resolve("libnvidia-ml.so.1"),
          libDir.resolve("libnvidia-ml.so.1"),
          StandardCopyOption.ATOMIC_MOVE);

      await().atMost(WAIT).until(() -> !events.of(node, GpuInventoryReported.class).isEmpty());
      assertThat(events.of(node, GpuInventoryReported.class).getFirst().gpus()).hasSize(3);
      List<NodeRegistered> registered = events.of(node, NodeRegistered.class);
      assertThat(registered).hasSize(2);
      NodeRegistered up = registered.get(1);
      assertThat(up.driverVersion()).isEqualTo("580.95.05");
      assertThat(up.driverRoot()).isEqualTo("/run/nvidia/driver");
      assertThat(up.hostKind()).isEqualTo(HostKind.UBUNTU_DRIVER_CONTAINER);
      assertThat(up.reasons().get("driverVersion"))
          .startsWith("driverVersion=580.95.05: reported by NVML at ");
      // With the GPUs up, it follows its spec: the boot is checked, the gate held.
      await().atMost(WAIT).until(() -> !events.of(node, NodeBooted.class).isEmpty());
      assertThat(events.of(node, Heartbeat.class).size()).isGreaterThanOrEqualTo(3);

      agent.destroy();
      assertThat(agent.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      List<String> lines = Files.readAllLines(log);
      assertThat(lines)
          .as("one log line per change of state, not per attempt")
          .filteredOn(line -> line.contains("GPUs not ready: no libnvidia-ml.so.1"))
          .hasSize(1);
      assertThat(lines).anyMatch(line -> line.contains(node + ": GPUs up after "));
    } finally {
      agent.destroyForcibly();
    }
  }

  private static Process agent(String... args) throws Exception {
    return AgentProcess.start(args);
  }

  private static Process agent(Path log, String... args) throws Exception {
    return AgentProcess.start(Map.of(), List.of(), log, args);
  }

  private static NodeEventsReader events() {
    return new NodeEventsReader(kafka.bootstrapServers(), Topics.NODE_EVENTS);
  }
}
