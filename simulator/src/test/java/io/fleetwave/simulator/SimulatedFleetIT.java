package io.fleetwave.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.AgentStopping;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.simulator.fleet.FleetFile;
import io.fleetwave.testsupport.kafka.NodeEventsReader;
import io.fleetwave.testsupport.kafka.NodeEventsReader.Received;
import io.fleetwave.testsupport.services.KafkaExtension;
import io.fleetwave.testsupport.services.Shared;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** 50 simulated agents of all host kinds against a real Kafka broker. */
@ExtendWith(KafkaExtension.class)
class SimulatedFleetIT {
  private static final String TOPIC = "it.node-events";
  private static final Duration WAIT = Duration.ofSeconds(60);

  private static final String FLEET =
      """
      nodes:
        - name-prefix: ubuntu-a100
          count: 10
          host: ubuntu
          zone: zone-a
          labels: {pool: training}
          driver-version: "580.95.05"
          gpus:
            - model: "0x20B210DE"
              count: 8
        - name-prefix: dc-h100
          count: 10
          host: ubuntu-driver-container
          zone: zone-a
          labels: {pool: training}
          driver-version: "580.95.05"
          gpus:
            - model: "0x233010DE"
              count: 4
        - name-prefix: talos-h200
          count: 10
          host: talos
          zone: zone-b
          labels: {pool: inference}
          driver-version: "580.95.05"
          gpus:
            - model: "0x233510DE"
              count: 2
            - model: T4
              count: 1
        - name-prefix: cos-l4
          count: 10
          host: cos
          zone: zone-c
          labels: {pool: batch}
          driver-version: "570.172.08"
          gpus:
            - model: "0x27B810DE"
              count: 2
        - name-prefix: vgpu-l40s
          count: 10
          host: vgpu-host
          zone: zone-c
          labels: {pool: vdi}
          driver-version: "580.95.05"
          gpus:
            - model: "0x26B910DE"
              count: 4
      """;

  /** product, PCI id, memory, MIG capable, MIG mode, VFs: per GPU model. */
  private record GpuFacts(
      String product, String pciId, long memoryMiB, boolean mig, MigMode mode, int vfs) {
    static GpuFacts of(Gpu gpu) {
      return new GpuFacts(
          gpu.product(),
          gpu.pciDeviceId(),
          gpu.memoryMiB(),
          gpu.migCapable(),
          gpu.migMode(),
          gpu.vfsTotal());
    }
  }

  private static final GpuFacts A100_80 =
      new GpuFacts("NVIDIA A100-SXM4-80GB", "0x20B210DE", 81920, true, MigMode.DISABLED, 0);
  private static final GpuFacts H100 =
      new GpuFacts("NVIDIA H100 80GB HBM3", "0x233010DE", 81559, true, MigMode.DISABLED, 0);
  private static final GpuFacts H200 =
      new GpuFacts("NVIDIA H200", "0x233510DE", 143771, true, MigMode.DISABLED, 0);
  private static final GpuFacts T4 =
      new GpuFacts("Tesla T4", "0x1EB810DE", 15360, false, MigMode.UNSUPPORTED, 0);
  private static final GpuFacts L4 =
      new GpuFacts("NVIDIA L4", "0x27B810DE", 23034, false, MigMode.UNSUPPORTED, 0);
  private static final GpuFacts L40S_VGPU =
      new GpuFacts("NVIDIA L40S", "0x26B910DE", 46068, false, MigMode.UNSUPPORTED, 32);

  private static final Map<String, List<GpuFacts>> EXPECTED_GPUS =
      Map.of(
          "ubuntu-a100",
              List.of(A100_80, A100_80, A100_80, A100_80, A100_80, A100_80, A100_80, A100_80),
          "dc-h100", List.of(H100, H100, H100, H100),
          "talos-h200", List.of(H200, H200, T4),
          "cos-l4", List.of(L4, L4),
          "vgpu-l40s", List.of(L40S_VGPU, L40S_VGPU, L40S_VGPU, L40S_VGPU));

  private static final Map<String, String> ZONES =
      Map.of(
          "ubuntu-a100",
          "zone-a",
          "dc-h100",
          "zone-a",
          "talos-h200",
          "zone-b",
          "cos-l4",
          "zone-c",
          "vgpu-l40s",
          "zone-c");
  private static final Map<String, String> POOLS =
      Map.of(
          "ubuntu-a100",
          "training",
          "dc-h100",
          "training",
          "talos-h200",
          "inference",
          "cos-l4",
          "batch",
          "vgpu-l40s",
          "vdi");

  @Shared private static KafkaBroker kafka;
  private static SimulatedFleet fleet;
  private static NodeEventsReader reader;

  @BeforeAll
  static void startFleet() {
    kafka.createTopics(4, TOPIC);
    fleet = TestFleets.start(kafka, FLEET, "it-fleet.yaml", Duration.ofMillis(500), TOPIC);
    reader = new NodeEventsReader(kafka.bootstrapServers(), TOPIC);
  }

  @AfterAll
  static void stop() throws Exception {
    TestFleets.closeAll(reader, fleet);
  }

  @Test
  void everyNodeRegistersTheFactsOfItsHostKind() {
    await().atMost(WAIT).until(() -> registrations(reader.poll()).size() == 50);
    Map<String, NodeRegistered> registered = registrations(reader.poll());

    assertThat(registered.keySet())
        .isEqualTo(fleet.nodes().stream().map(SimulatedNode::name).collect(Collectors.toSet()));
    for (NodeRegistered node : registered.values()) {
      String group = group(node.hostname());
      // The facts of each host kind are written out in FleetFileTest; here: they are what is sent.
      assertThat(node)
          .as(node.hostname())
          .isEqualTo(SimulatedHostFacts.of(fleet.node(node.hostname()).orElseThrow().spec()));
      assertThat(node.hostKind().wireName()).isEqualTo(hostKindOf(group));
      assertThat(node.zone()).isEqualTo(ZONES.get(group));
      assertThat(node.labels()).isEqualTo(Map.of("pool", POOLS.get(group)));
      assertThat(node.driverVersion())
          .isEqualTo(group.equals("cos-l4") ? "570.172.08" : "580.95.05");
      assertThat(node.reasons())
          .containsKeys(
              "hostKind",
              "osId",
              "kernel",
              "readOnlyRoot",
              "systemd",
              "driverRoot",
              "deviceRoot",
              "driverProvider")
          .allSatisfy(
              (field, reason) ->
                  assertThat(reason).startsWith("simulated " + node.hostKind() + " host"));
    }
  }

  @Test
  void everyNodeReportsTheGpusOfItsModels() {
    await().atMost(WAIT).until(() -> inventories(reader.poll()).size() == 50);
    Map<String, List<Gpu>> inventories = inventories(reader.poll());

    Set<String> uuids = new HashSet<>();
    for (var entry : inventories.entrySet()) {
      List<Gpu> gpus = entry.getValue();
      assertThat(gpus.stream().map(GpuFacts::of).toList())
          .as(entry.getKey())
          .isEqualTo(EXPECTED_GPUS.get(group(entry.getKey())));
      for (int i = 0; i < gpus.size(); i++) {
        Gpu gpu = gpus.get(i);
        assertThat(gpu.index()).isEqualTo(i);
        assertThat(gpu.uuid()).isEqualTo(SimulatedGpuBackend.gpuUuid(entry.getKey(), i));
        assertThat(gpu.pciBusId()).isEqualTo(SimulatedGpuBackend.pciBusId(i));
        assertThat(gpu.instances()).isEmpty();
        assertThat(gpu.vfsEnabled()).isZero();
        assertThat(gpu.health()).isEqualTo(GpuHealth.HEALTHY);
        uuids.add(gpu.uuid());
      }
    }
    assertThat(uuids).hasSize(10 * 8 + 10 * 4 + 10 * 3 + 10 * 2 + 10 * 4);
  }

  @Test
  void heartbeatsCarryTheBootIdAndRecordsAreKeyedAndOrderedPerNode() {
    await()
        .atMost(WAIT)
        .until(
            () -> fleet.nodes().stream().allMatch(n -> heartbeatsOf(reader.poll(), n.name()) >= 2));
    List<Received> all = reader.poll();

    for (Received record : all) {
      assertThat(record.key()).isEqualTo(record.envelope().subject());
      assertThat(record.contentType()).isEqualTo(EventCodec.CONTENT_TYPE);
      if (record.envelope().data() instanceof Heartbeat heartbeat) {
        SimulatedNode node = fleet.node(record.key()).orElseThrow();
        assertThat(heartbeat.bootId()).isEqualTo(node.gpus().bootId());
      }
    }
    Map<String, List<Received>> byNode = all.stream().collect(Collectors.groupingBy(Received::key));
    assertThat(byNode).hasSize(50);
    byNode.forEach(
        (node, records) -> {
          assertThat(records.stream().map(Received::partition).distinct()).as(node).hasSize(1);
          for (int i = 1; i < records.size(); i++) {
            var before = records.get(i - 1).envelope();
            var after = records.get(i).envelope();
            assertThat(after.isAfter(before.epoch(), before.seq()))
                .as(
                    "%s: (%d,%d) after (%d,%d)",
                    node, after.epoch(), after.seq(), before.epoch(), before.seq())
                .isTrue();
          }
          assertThat(records.getFirst().envelope().seq()).isZero();
          assertThat(records.getFirst().envelope().data()).isInstanceOf(NodeRegistered.class);
        });
  }

  @Test
  void aChangeOfGpuStateIsRepublished() {
    SimulatedNode node = fleet.node("dc-h100-3").orElseThrow();
    node.gpus().setMigMode(1, true); // Hopper: takes effect at once
    node.gpus().createGpuInstance(1, "3g.40gb", 4);

    await()
        .atMost(WAIT)
        .until(
            () ->
                reader.poll().stream()
                    .filter(r -> r.key().equals("dc-h100-3"))
                    .map(r -> r.envelope().data())
                    .anyMatch(
                        data ->
                            data instanceof GpuInventoryReported inventory
                                && inventory.gpus().get(1).migMode() == MigMode.ENABLED
                                && inventory.gpus().get(1).instances().size() == 1
                                && inventory.gpus().get(1).instances().getFirst().placementStart()
                                    == 4));
  }

  @Test
  void aCrashedAgentRestartsWithALargerEpoch() {
    SimulatedNode node = fleet.node("talos-h200-7").orElseThrow();
    long before = node.epoch();
    node.crash();
    assertThat(node.agentRunning()).isFalse();
    node.restart();
    long after = node.epoch();
    assertThat(after).isGreaterThan(before);

    await()
        .atMost(WAIT)
        .until(
            () ->
                reader.poll().stream()
                    .anyMatch(
                        r ->
                            r.key().equals("talos-h200-7")
                                && r.envelope().epoch() == after
                                && r.envelope().seq() == 0
                                && r.envelope().data() instanceof NodeRegistered));
    assertThat(
            reader.poll().stream()
                .filter(r -> r.key().equals("talos-h200-7"))
                .noneMatch(r -> r.envelope().data() instanceof AgentStopping))
        .as("a crash says nothing")
        .isTrue();
  }

  @Test
  void closingAFleetPublishesAgentStoppingForEveryNode() {
    String topic = "it.closing";
    kafka.createTopics(2, topic);
    String yaml =
        """
        nodes:
          - name-prefix: closing
            count: 3
            host: cos
            driver-version: "580.95.05"
            gpus: [{model: L4, count: 1}]
        """;
    SimulatedFleet small =
        SimulatedFleet.start(
            FleetFile.parse(yaml, "closing.yaml"),
            new SimulatedFleet.Settings(
                kafka.bootstrapServers(),
                Duration.ofSeconds(30),
                topic,
                1,
                Duration.ofSeconds(20),
                Duration.ofSeconds(10)));
    small.close();
    assertThat(small.publisher().failed()).isZero();
    assertThat(small.publisher().acknowledged()).isEqualTo(small.publisher().sent());

    try (NodeEventsReader closing = new NodeEventsReader(kafka.bootstrapServers(), topic)) {
      await()
          .atMost(WAIT)
          .until(
              () ->
                  closing.poll().stream()
                      .filter(r -> r.envelope().data() instanceof AgentStopping)
                      .map(Received::key)
                      .collect(Collectors.toSet())
                      .equals(Set.of("closing-0", "closing-1", "closing-2")));
    }
  }

  private static Map<String, NodeRegistered> registrations(List<Received> records) {
    return records.stream()
        .filter(r -> r.envelope().data() instanceof NodeRegistered)
        .collect(
            Collectors.toMap(
                Received::key, r -> (NodeRegistered) r.envelope().data(), (a, b) -> b));
  }

  /** The first inventory of each node's first run, before any test changed it. */
  private static Map<String, List<Gpu>> inventories(List<Received> records) {
    return records.stream()
        .filter(r -> r.envelope().data() instanceof GpuInventoryReported)
        .collect(
            Collectors.toMap(
                Received::key,
                r -> ((GpuInventoryReported) r.envelope().data()).gpus(),
                (first, later) -> first));
  }

  private static long heartbeatsOf(List<Received> records, String node) {
    return records.stream()
        .filter(r -> r.key().equals(node) && r.envelope().data() instanceof Heartbeat)
        .count();
  }

  private static String group(String nodeName) {
    return nodeName.substring(0, nodeName.lastIndexOf('-'));
  }

  private static String hostKindOf(String group) {
    return switch (group) {
      case "ubuntu-a100" -> "ubuntu";
      case "dc-h100" -> "ubuntu-driver-container";
      case "talos-h200" -> "talos";
      case "cos-l4" -> "cos";
      case "vgpu-l40s" -> "vgpu-host";
      default -> throw new AssertionError(group);
    };
  }
}
