package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.nvml.StubNvmlLibrary;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.FleetEvent;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.AgentStopping;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeRegistered;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real agent as an operator runs it: a separate JVM on a Talos-shaped host tree whose driver
 * root holds a gcc-built stand-in libnvidia-ml.so.1; its events are read back from a real broker.
 */
class AgentMainIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static EmbeddedKafka kafka;
  private static Path hostRoot;

  @BeforeAll
  static void hostAndBroker() throws Exception {
    hostRoot = Files.createTempDirectory(Path.of("target"), "agent-host-").toAbsolutePath();
    StubNvmlLibrary.build(hostRoot.resolve("usr/local/lib64"));
    new HostTree(hostRoot)
        .osRelease("talos", "v1.13.0")
        .kernel("6.18.29-talos")
        .mountinfo(HostTree.RO_ROOT_MOUNTINFO)
        .devices("/", 3)
        .file("proc/sys/kernel/random/boot_id", "7d1f0c3e-boot\n");
    kafka = EmbeddedKafka.start();
    kafka.createTopics(1, Topics.NODE_EVENTS);
  }

  @AfterAll
  static void stopBroker() {
    kafka.close();
  }

  @Test
  void probeOnlyPrintsTheFactsAndInventoryAndChangesNothing() throws Exception {
    Process agent = agent("--probe-only", "--host-root", hostRoot.toString());
    assertThat(agent.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    String out = new String(agent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(agent.exitValue()).as(out).isZero();
    assertThat(out).contains("\"hostKind\" : \"talos\"", "\"readOnlyRoot\" : true");
    assertThat(out).contains("driverRoot=/usr/local: found lib64/libnvidia-ml.so.1");
    assertThat(out).contains("GpuInventoryReported");
  }

  @Test
  void publishesFactsInventoryAndHeartbeatsUntilStopped() throws Exception {
    Process agent =
        agent(
            "--bootstrap", kafka.bootstrapServers(),
            "--host-root", hostRoot.toString(),
            "--zone", "zone-t",
            "--labels", "pool=training",
            "--heartbeat-seconds", "1");
    try (KafkaConsumer<String, byte[]> consumer = consumer()) {
      List<Envelope<FleetEvent>> seen = new ArrayList<>();
      await()
          .atMost(WAIT)
          .until(
              () -> {
                read(consumer, seen);
                return seen.stream().anyMatch(e -> e.type().contains("heartbeat"));
              });

      NodeRegistered facts = first(seen, NodeRegistered.class);
      assertThat(facts.hostKind()).isEqualTo(HostKind.TALOS);
      assertThat(facts.readOnlyRoot()).isTrue();
      assertThat(facts.systemd()).isFalse();
      assertThat(facts.driverRoot()).isEqualTo("/usr/local");
      assertThat(facts.zone()).isEqualTo("zone-t");
      assertThat(facts.labels()).containsEntry("pool", "training");
      List<Gpu> gpus = first(seen, GpuInventoryReported.class).gpus();
      assertThat(gpus).extracting(Gpu::pciDeviceId).hasSize(3).contains("0x233010DE");
      assertThat(gpus)
          .filteredOn(g -> !g.migCapable())
          .allMatch(g -> g.migMode() == MigMode.UNSUPPORTED);

      agent.destroy();
      assertThat(agent.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      await()
          .atMost(WAIT)
          .until(
              () -> {
                read(consumer, seen);
                return seen.stream().anyMatch(e -> e.data() instanceof AgentStopping);
              });
    } finally {
      agent.destroyForcibly();
    }
  }

  private static Process agent(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(AgentMain.class.getName());
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }

  private static KafkaConsumer<String, byte[]> consumer() {
    KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG,
                "agent-main-it-" + System.nanoTime(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest"),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    consumer.subscribe(List.of(Topics.NODE_EVENTS));
    return consumer;
  }

  private static void read(KafkaConsumer<String, byte[]> consumer, List<Envelope<FleetEvent>> seen)
      throws Exception {
    for (var record : consumer.poll(Duration.ofMillis(200))) {
      seen.add(EventCodec.decode(record.value()));
    }
  }

  private static <T> T first(List<Envelope<FleetEvent>> seen, Class<T> type) {
    return seen.stream()
        .map(Envelope::data)
        .filter(type::isInstance)
        .map(type::cast)
        .findFirst()
        .orElseThrow();
  }
}
