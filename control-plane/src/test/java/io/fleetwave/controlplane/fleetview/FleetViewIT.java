package io.fleetwave.controlplane.fleetview;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.config.FleetViewConfig;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.controlplane.projection.NodeEventAuthenticity;
import io.fleetwave.controlplane.readmodel.FleetSummary;
import io.fleetwave.controlplane.readmodel.FleetTally;
import io.fleetwave.controlplane.readmodel.FleetTallyRows;
import io.fleetwave.controlplane.readmodel.SummaryQueries;
import io.fleetwave.core.projection.NodePosition;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testfixtures.events.GpuBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.common.annotation.Identifier;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The in-memory fleet view against the real thing: events through Kafka to this application, whose
 * projection writes PostgreSQL; the view must count what the SQL count of the tables counts.
 */
@QuarkusTest
class FleetViewIT {
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final List<HostKind> KINDS =
      List.of(HostKind.UBUNTU, HostKind.TALOS, HostKind.COS, HostKind.VGPU_HOST);
  private static final List<String> MODELS = List.of(Events.H100, Events.H200, Events.L4);

  @Inject FleetView view;
  @Inject FleetViewComparison comparison;
  @Inject Pool pool;
  @Inject NodeEventAuthenticity authenticity;
  @Inject FleetTallyRows tables;
  @Inject FleetViewConfig config;

  @Inject
  @Identifier("default-kafka-broker")
  Map<String, Object> kafkaConfig;

  @ConfigProperty(name = "mp.messaging.incoming.node-events.group.id")
  String projectionGroup;

  /**
   * A random fleet (seed printed) of registrations, changed host kinds, inventories of random
   * models, MIG modes and health, heartbeats, duplicates and a node's own older records replayed
   * after newer ones, plus records forged for a node by another node's key: once the projection has
   * written the last event of every node, the view's summary equals the tables' SQL count, and it
   * counts the fleet's nodes and GPUs.
   */
  @Test
  void countsWhatTheTablesCountForARandomFleet() {
    long seed = System.nanoTime();
    System.out.println("FleetViewIT seed: " + seed);
    Random random = new Random(seed);
    awaitReady();
    FleetSummary before = view.summary().orElseThrow();
    String prefix = "view-" + Long.toHexString(seed) + "-";
    int nodes = 6 + random.nextInt(6);
    long gpus = 0;
    Map<String, Integer> lastSeqs = new HashMap<>();
    try (TopicClient topic = new TopicClient()) {
      for (int n = 0; n < nodes; n++) {
        String node = prefix + n;
        List<Envelope<NodeEvent>> events = new ArrayList<>();
        int seq = 0;
        events.add(
            Events.envelope(
                node,
                1,
                seq++,
                Events.registered(node, pick(random, KINDS), "580.95.05", Map.of())));
        GpuInventoryReported first = inventory(random);
        events.add(Events.envelope(node, 1, seq++, first));
        GpuInventoryReported last = first;
        int changes = random.nextInt(4);
        for (int c = 0; c < changes; c++) {
          events.add(Events.envelope(node, 1, seq++, Events.heartbeat(seq)));
          if (random.nextBoolean()) {
            last = inventory(random);
            events.add(Events.envelope(node, 1, seq++, last));
          } else {
            events.add(
                Events.envelope(
                    node,
                    1,
                    seq++,
                    Events.registered(node, pick(random, KINDS), "580.95.05", Map.of())));
          }
        }
        // A duplicate of the newest event and the node's own first inventory again: neither may
        // count (the projection skips both by position).
        events.add(events.getLast());
        events.add(events.get(1));
        events.add(Events.envelope(node, 1, seq, Events.heartbeat(seq)));
        events.forEach(topic::publish);
        lastSeqs.put(node, seq);
        gpus += last.gpus().size();
      }
      // A node's events signed with another node's key: refused by the projection and the view.
      String forged = prefix + "forged";
      topic.publishSigned(
          Events.envelope(forged, 1, 0, Events.inventory(Events.H100, 8, MigMode.ENABLED)),
          topic.keyOf(prefix + "0"));
      lastSeqs.forEach(
          (node, seq) ->
              await(node + " projected")
                  .atMost(BOUND)
                  .until(() -> ProjectionRows.isAt(node, 1, seq)));
      long fleetGpus = gpus;
      await("the view's summary equal to the tables' count, with the new nodes")
          .atMost(BOUND)
          .untilAsserted(
              () -> {
                FleetSummary fromTables = SummaryQueries.count(pool).await().atMost(BOUND);
                FleetSummary fromView = view.summary().orElseThrow();
                assertThat(fromView).isEqualTo(fromTables);
                assertThat(fromView.totalNodes() - before.totalNodes()).isEqualTo(nodes);
                assertThat(fromView.totalGpus() - before.totalGpus()).isEqualTo(fleetGpus);
              });
      assertThat(view.readyTally().orElseThrow().get(forged)).isNull();
    }
  }

  /**
   * The comparison finds the view equal to the tables, and a GPU row changed behind the
   * projection's back is found, counted and taken into the view as the tables hold it.
   */
  @Test
  void theComparisonSetsANodeThatDiffersAsTheTablesHoldIt() throws Exception {
    awaitReady();
    String node = "view-compared-" + Long.toHexString(System.nanoTime());
    register(node, HostKind.UBUNTU, Events.inventory(Events.H200, 2, MigMode.DISABLED));
    await(node + " projected and counted")
        .atMost(BOUND)
        .until(
            () ->
                ProjectionRows.isAt(node, 1, 1)
                    && view.readyTally().orElseThrow().get(node) != null
                    && view.readyTally().orElseThrow().get(node).gpus().size() == 2);
    FleetTally.Comparison clean = comparison.compare().await().atMost(BOUND).orElseThrow();
    assertThat(clean.repaired()).doesNotContain(node);
    assertThat(clean.compared()).isPositive();

    tamper(node, "failed");
    try {
      FleetTally.Comparison found = comparison.compare().await().atMost(BOUND).orElseThrow();

      assertThat(found.repaired()).contains(node);
      assertThat(view.readyTally().orElseThrow().get(node).gpus())
          .extracting(FleetTally.CountedGpu::health)
          .containsExactlyInAnyOrder("failed", "healthy");
    } finally {
      // As it was, in the tables and then in the view: later tests rebuild the projection and
      // compare it with the live tables.
      tamper(node, "healthy");
      comparison.compare().await().atMost(BOUND);
    }
  }

  private static void tamper(String node, String health) throws Exception {
    try (Connection db = ProjectionRows.connect();
        PreparedStatement tamper =
            db.prepareStatement("UPDATE gpus SET health = ? WHERE node = ? AND gpu_index = 0")) {
      tamper.setString(1, health);
      tamper.setString(2, node);
      assertThat(tamper.executeUpdate()).isEqualTo(1);
    }
  }

  /**
   * A node's own record that PostgreSQL refuses (a NUL byte in a GPU's product: dead-lettered by
   * the projection) is counted by the view, which cannot know the refusal: the one way the two
   * part. Once the node's next event has reached both, they stand at the same position and the
   * comparison sets the node as the tables hold it.
   */
  @Test
  void aRecordPostgresRefusesIsTakenBackByTheComparison() {
    awaitReady();
    String node = "view-refused-" + Long.toHexString(System.nanoTime());
    register(node, HostKind.UBUNTU, Events.inventory(Events.H100, 2, MigMode.DISABLED));
    try (TopicClient topic = new TopicClient()) {
      topic.publish(
          Events.envelope(
              node,
              1,
              2,
              new GpuInventoryReported(
                  List.of(
                      GpuBuilder.from(Events.gpu(0, Events.H200, MigMode.DISABLED))
                          .product("NVIDIA H200\u0000")
                          .build()))));
      topic.publish(Events.envelope(node, 1, 3, Events.heartbeat(3)));
    }
    await(node + " at its last event in the tables and the view")
        .atMost(BOUND)
        .until(
            () ->
                ProjectionRows.isAt(node, 1, 3)
                    && view.readyTally().orElseThrow().get(node) != null
                    && view.readyTally()
                        .orElseThrow()
                        .get(node)
                        .position()
                        .equals(new NodePosition(1, 3)));
    assertThat(view.readyTally().orElseThrow().get(node).gpus())
        .as("the refused inventory, counted by the view")
        .extracting(FleetTally.CountedGpu::pciDeviceId)
        .containsExactly(Events.H200);

    FleetTally.Comparison comparison =
        this.comparison.compare().await().atMost(BOUND).orElseThrow();

    assertThat(comparison.repaired()).contains(node);
    assertThat(view.readyTally().orElseThrow().get(node).gpus())
        .extracting(FleetTally.CountedGpu::pciDeviceId)
        .containsExactly(Events.H100, Events.H100);
  }

  /**
   * A replica started on a fleet that exists (another replica's view, started now) loads the
   * tables, follows the log from the projection's committed offsets, and counts what the tables
   * count.
   */
  @Test
  void aViewStartedLaterLoadsTheTablesAndCountsAlike() throws Exception {
    awaitReady();
    String node = "view-later-" + Long.toHexString(System.nanoTime());
    register(node, HostKind.TALOS, Events.inventory(Events.L4, 3, MigMode.DISABLED));
    await(node + " projected").atMost(BOUND).until(() -> ProjectionRows.isAt(node, 1, 1));
    FleetView later = new FleetView(authenticity, tables, kafkaConfig, projectionGroup, config);
    later.onStart(null, new SimpleMeterRegistry());
    try {
      await("the later view ready and equal to the tables' count")
          .atMost(BOUND)
          .untilAsserted(
              () ->
                  assertThat(later.summary())
                      .contains(SummaryQueries.count(pool).await().atMost(BOUND)));
      assertThat(later.readyTally().orElseThrow().get(node).gpus()).hasSize(3);
    } finally {
      later.onStop(null);
    }
  }

  /** A node's registration (seq 0) and inventory (seq 1), as its agent publishes them. */
  private static void register(String node, HostKind kind, GpuInventoryReported inventory) {
    try (TopicClient topic = new TopicClient()) {
      topic.publish(
          Events.envelope(node, 1, 0, Events.registered(node, kind, "580.95.05", Map.of())));
      topic.publish(Events.envelope(node, 1, 1, inventory));
    }
  }

  private void awaitReady() {
    await("the fleet view ready").atMost(BOUND).until(() -> view.summary().isPresent());
  }

  private static GpuInventoryReported inventory(Random random) {
    String model = pick(random, MODELS);
    MigMode mode = random.nextBoolean() ? MigMode.ENABLED : MigMode.DISABLED;
    List<Gpu> gpus =
        IntStream.range(0, 1 + random.nextInt(8))
            .mapToObj(
                i ->
                    GpuBuilder.from(Events.gpu(i, model, mode))
                        .health(pick(random, List.of(GpuHealth.values())))
                        .build())
            .toList();
    return new GpuInventoryReported(gpus);
  }

  private static <T> T pick(Random random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }
}
