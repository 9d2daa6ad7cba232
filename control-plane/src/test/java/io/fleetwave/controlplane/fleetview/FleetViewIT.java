package io.fleetwave.controlplane.fleetview;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;

import io.fleetwave.controlplane.config.FleetViewConfig;
import io.fleetwave.controlplane.facts.ControlFactLog;
import io.fleetwave.controlplane.facts.FactsCaughtUp;
import io.fleetwave.controlplane.facts.NodeControls;
import io.fleetwave.controlplane.fixtures.FleetViewNodes;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageRequest;
import io.fleetwave.controlplane.projection.NodeEventAuthenticity;
import io.fleetwave.controlplane.readmodel.FleetSummary;
import io.fleetwave.controlplane.readmodel.FleetTally;
import io.fleetwave.controlplane.readmodel.FleetTallyRows;
import io.fleetwave.controlplane.readmodel.NodeFilter;
import io.fleetwave.controlplane.readmodel.NodeListView;
import io.fleetwave.controlplane.readmodel.NodeQueries;
import io.fleetwave.controlplane.readmodel.NodeView;
import io.fleetwave.controlplane.readmodel.SummaryQueries;
import io.fleetwave.controlplane.readmodel.VersionQueries;
import io.fleetwave.core.projection.NodePosition;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.fact.DesiredSpecSet;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.NodeSpec;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testfixtures.events.GpuBuilder;
import io.fleetwave.testfixtures.events.NodeRegisteredBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.common.annotation.Identifier;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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

  /** The labels reports.node_inventory reads a node's pool from, first first. */
  private static final List<String> POOL_LABELS =
      List.of(
          "pool",
          "cloud.google.com/gke-nodepool",
          "eks.amazonaws.com/nodegroup",
          "karpenter.sh/nodepool",
          "kubernetes.azure.com/agentpool");

  private static final List<String> ZONES = List.of("zone-a", "zone-b", "zone-c");

  @Inject FleetView view;
  @Inject FleetViewComparison comparison;
  @Inject Pool pool;
  @Inject NodeEventAuthenticity authenticity;
  @Inject FleetTallyRows tables;
  @Inject FleetViewConfig config;
  @Inject NodeQueries nodes;
  @Inject NodeControls controls;
  @Inject FactsCaughtUp factsCaughtUp;
  @Inject ControlFactLog facts;
  @Inject VersionQueries versions;

  @Inject
  @Identifier("default-kafka-broker")
  Map<String, Object> kafkaConfig;

  @ConfigProperty(name = "mp.messaging.incoming.node-events.group.id")
  String projectionGroup;

  /**
   * A random fleet (seed printed) of registrations with random labels (pool labels of each key
   * among them), zones or none, drivers or none, changed host kinds, inventories of random models,
   * MIG on, off or absent per GPU with instances in random placements (or none), heartbeats,
   * progress events (specs accepted, steps started and failed, specs applied and rejected, gates,
   * boots), event times to the nanosecond, duplicates and a node's own older records replayed after
   * newer ones, desired specs set (a lower generation after a higher one, the highest set twice at
   * times, asking the driver the node runs, another or none) that the node then applies (every
   * kind, by the node's number), fails or leaves, plus records forged for a node by another node's
   * key: once the projection has written the last event of every node, the view's summary equals
   * the tables' SQL count, every node read from the view equals the node read from the tables, and
   * so do listings and version distributions.
   */
  @Test
  void holdsWhatTheTablesHoldForARandomFleet() {
    long seed = System.nanoTime();
    System.out.println("FleetViewIT seed: " + seed);
    Random random = new Random(seed);
    awaitReady();
    FleetSummary before = view.summary().orElseThrow();
    String fleetLabel = Long.toHexString(seed);
    String prefix = "view-" + fleetLabel + "-";
    int fleet = 6 + random.nextInt(6);
    long gpus = 0;
    Map<String, Integer> lastSeqs = new HashMap<>();
    List<ControlFactLog.Subject> specs = new ArrayList<>();
    try (TopicClient topic = new TopicClient()) {
      for (int n = 0; n < fleet; n++) {
        String node = prefix + n;
        List<Envelope<NodeEvent>> events = new ArrayList<>();
        int seq = 0;
        NodeRegistered running = registered(random, node, fleetLabel);
        events.add(envelope(random, node, seq++, running));
        GpuInventoryReported first = inventory(random);
        events.add(envelope(random, node, seq++, first));
        GpuInventoryReported last = first;
        for (int p = 1 + random.nextInt(4); p > 0; p--) {
          events.add(envelope(random, node, seq++, progress(random)));
        }
        int changes = random.nextInt(6);
        for (int c = 0; c < changes; c++) {
          events.add(envelope(random, node, seq++, Events.heartbeat(seq)));
          int kind = random.nextInt(3);
          if (kind == 0) {
            last = inventory(random);
          } else if (kind == 1) {
            running = registered(random, node, fleetLabel);
          }
          NodeEvent change =
              switch (kind) {
                case 0 -> last;
                case 1 -> running;
                default -> progress(random);
              };
          events.add(envelope(random, node, seq++, change));
        }
        int scenario = n % 5;
        if (scenario > 0) {
          // 1 to 3: the node applies a spec (above every generation of its progress events, so it
          // converges) asking the driver it runs (none at times), another or none: drifted only
          // where it runs another driver; 4: it fails or leaves its spec, asking any of them.
          long desired = scenario < 4 ? 4 : 2L + random.nextInt(3);
          String driver =
              switch (scenario) {
                case 1 -> running.driverVersion();
                case 2 -> "580.95.05";
                case 3 -> null;
                default -> desiredDriver(random, running);
              };
          if (random.nextInt(3) == 0) {
            // The same generation twice, the one set earlier last (an engine that took over):
            // the table keeps the first time's spec.
            specs.add(spec(node, desired, "580.95.07", Instant.now()));
            specs.add(
                spec(node, desired, driver, Instant.now().minusSeconds(1 + random.nextInt(60))));
          } else {
            specs.add(spec(node, desired, driver, Instant.now()));
          }
          specs.add(spec(node, 1, "570.1", Instant.now()));
          PlannedStep step = new PlannedStep(0, StepKind.SET_MIG_MODE, 0, "enabled", 60_000);
          if (scenario < 4) {
            events.add(envelope(random, node, seq++, new SpecApplied(desired)));
          } else if (random.nextBoolean()) {
            events.add(
                envelope(
                    random,
                    node,
                    seq++,
                    new StepFailed(desired, step, "nvidia-smi timed out", null, 30_000)));
          }
        }
        // A duplicate of the newest event and the node's own first inventory again: neither may
        // count (the projection skips both by position).
        events.add(events.getLast());
        events.add(events.get(1));
        events.add(envelope(random, node, seq, Events.heartbeat(seq)));
        events.forEach(topic::publish);
        lastSeqs.put(node, seq);
        gpus += last.gpus().size();
      }
      facts.appendAll(specs, Instant.now()).await().atMost(BOUND);
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
                assertThat(fromView.totalNodes() - before.totalNodes()).isEqualTo(fleet);
                assertThat(fromView.totalGpus() - before.totalGpus()).isEqualTo(fleetGpus);
              });
      await("every node of the view equal to the node the tables hold")
          .atMost(BOUND)
          .untilAsserted(
              () -> {
                for (String node : lastSeqs.keySet()) {
                  assertThat(view.node(node))
                      .as(node)
                      .contains(nodes.find(node).await().atMost(BOUND));
                }
              });
      assertThat(view.readyTally().orElseThrow().get(forged)).isNull();
      assertThat(view.node(forged)).contains(Optional.empty());
      listsAsTheTablesDo(random, fleetLabel);
      versionsAsTheTablesDo(random, fleetLabel);
    }
  }

  /**
   * The version distribution from memory equals the one read from reports.version_distribution
   * ({@link VersionQueries}), for the whole fleet and for random zones and pools, '(none)'
   * included.
   */
  private void versionsAsTheTablesDo(Random random, String fleet) {
    List<String> zones = new ArrayList<>(ZONES);
    zones.add("(none)");
    List<String> pools = new ArrayList<>(List.of("(none)", "elsewhere"));
    IntStream.range(0, 3).forEach(p -> pools.add("pool-" + fleet + "-" + p));
    List<List<String>> filters = new ArrayList<>();
    filters.add(Arrays.asList(null, null));
    for (int t = 0; t < 12; t++) {
      filters.add(
          Arrays.asList(
              random.nextInt(3) == 0 ? null : pick(random, zones),
              random.nextInt(3) == 0 ? null : pick(random, pools)));
    }
    // A node another test left with a record PostgreSQL refused keeps the distribution in SQL
    // until the comparison takes it back.
    comparison.compare().await().atMost(BOUND);
    await("the view's version distributions equal to reports.version_distribution's")
        .atMost(BOUND)
        .untilAsserted(
            () -> {
              for (List<String> filter : filters) {
                String zone = filter.get(0);
                String pool = filter.get(1);
                assertThat(view.versions(zone, pool))
                    .as("zone %s, pool %s", zone, pool)
                    .contains(versions.distribution(zone, pool).await().atMost(BOUND));
              }
            });
    assertThat(view.versions(null, "pool-" + fleet + "-0").orElseThrow())
        .as("the distribution of a pool of this fleet alone")
        .allSatisfy(row -> assertThat(row.pool()).isEqualTo("pool-" + fleet + "-0"));
  }

  /**
   * Random listings of the fleet (filters by host kind, GPU model in either case, label selector,
   * zone; both forms; pages): the view's page equals the SQL listing's, items, order and total.
   */
  private void listsAsTheTablesDo(Random random, String fleet) {
    List<String> selectors =
        List.of("", ",label-1=value-2", ",label-0 notin (value-1)", ",!label-3", ",label-2");
    for (int t = 0; t < 40; t++) {
      String kind = random.nextBoolean() ? null : pick(random, KINDS).wireName();
      String model = null;
      if (random.nextInt(3) == 0) {
        model = pick(random, MODELS);
        model = random.nextBoolean() ? model : model.toLowerCase(Locale.ROOT);
      }
      String selector = "fleet=" + fleet + pick(random, selectors);
      String zone =
          random.nextInt(3) == 0 ? pick(random, List.of("zone-a", "zone-b", "zone-c")) : null;
      NodeListView form = random.nextBoolean() ? NodeListView.FULL : NodeListView.BRIEF;
      PageRequest paging = new PageRequest(random.nextInt(3), 1 + random.nextInt(5));
      NodeFilter filter = NodeFilter.parse(kind, model, selector);
      NodeFilter.Condition condition = filter.toSql().inZone(zone);
      Page<NodeView> fromTables =
          nodes.list(condition.sql(), condition.params(), paging, form).await().atMost(BOUND);
      assertThat(view.list(filter, zone, paging, form))
          .as("%s %s %s %s %s %s", kind, model, selector, zone, form, paging)
          .contains(fromTables);
    }
  }

  /**
   * A call that reads or writes PostgreSQL about a node the view already shows waits until the
   * tables hold the node there: a client that saw the node acts on what it saw. Here the tables are
   * set a record behind the view (as while the projection writes) and put back.
   */
  @Test
  void aCallAboutANodeWaitsForTheTablesToHoldWhatTheViewShows() throws Exception {
    awaitReady();
    String node = "view-ahead-" + Long.toHexString(System.nanoTime());
    register(node, HostKind.UBUNTU, Events.inventory(Events.H100, 1, MigMode.DISABLED));
    FleetViewNodes.awaitHeld(view, node);
    sql("UPDATE nodes SET last_seq = 0 WHERE name = '" + node + "'");
    try {
      var reached = view.tablesReach(node).subscribeAsCompletionStage();
      await("the call waiting while the tables are behind")
          .during(Duration.ofMillis(500))
          .atMost(Duration.ofSeconds(2))
          .until(() -> !reached.isDone());
      sql("UPDATE nodes SET last_seq = 1 WHERE name = '" + node + "'");
      await("the call going on once the tables hold the node")
          .atMost(Duration.ofSeconds(2))
          .until(reached::isDone);
    } finally {
      sql("UPDATE nodes SET last_seq = 1 WHERE name = '" + node + "'");
    }
    // Never reached: the call goes on with what the tables hold after the bound.
    sql("UPDATE nodes SET last_seq = 0 WHERE name = '" + node + "'");
    try {
      long started = System.nanoTime();
      view.tablesReach(node).await().atMost(config.tablesWait().plusSeconds(5));
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isGreaterThanOrEqualTo(config.tablesWait());
    } finally {
      sql("UPDATE nodes SET last_seq = 1 WHERE name = '" + node + "'");
    }
  }

  private static void sql(String statement) throws Exception {
    try (Connection db = ProjectionRows.connect();
        PreparedStatement update = db.prepareStatement(statement)) {
      assertThat(update.executeUpdate()).isEqualTo(1);
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
                    && view.readyTally().orElseThrow().get(node).node().gpus().size() == 2);
    FleetTally.Comparison clean = comparison.compare().await().atMost(BOUND).orElseThrow();
    assertThat(clean.repaired()).doesNotContain(node);
    assertThat(clean.compared()).isPositive();

    tamper(node, "failed");
    try {
      FleetTally.Comparison found = comparison.compare().await().atMost(BOUND).orElseThrow();

      assertThat(found.repaired()).contains(node);
      assertThat(view.readyTally().orElseThrow().get(node).node().gpus())
          .extracting(NodeView.GpuView::health)
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
    assertThat(view.readyTally().orElseThrow().get(node).node().gpus())
        .as("the refused inventory, counted by the view")
        .extracting(NodeView.GpuView::pciDeviceId)
        .containsExactly(Events.H200);
    await("the node read from the tables once its record is dead-lettered")
        .atMost(BOUND)
        .until(() -> view.node(node).isEmpty());
    given()
        .get("/api/v1/nodes/" + node)
        .then()
        .statusCode(200)
        .body("gpus.pciDeviceId", contains(Events.H100, Events.H100));

    FleetTally.Comparison comparison =
        this.comparison.compare().await().atMost(BOUND).orElseThrow();

    assertThat(comparison.repaired()).contains(node);
    assertThat(view.readyTally().orElseThrow().get(node).node().gpus())
        .extracting(NodeView.GpuView::pciDeviceId)
        .containsExactly(Events.H100, Events.H100);
    assertThat(view.node(node)).contains(nodes.find(node).await().atMost(BOUND));
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
    FleetView later =
        new FleetView(
            authenticity,
            tables,
            kafkaConfig,
            projectionGroup,
            config,
            controls,
            factsCaughtUp,
            nodes);
    later.onStart(null, new SimpleMeterRegistry());
    try {
      await("the later view ready and equal to the tables' count")
          .atMost(BOUND)
          .untilAsserted(
              () ->
                  assertThat(later.summary())
                      .contains(SummaryQueries.count(pool).await().atMost(BOUND)));
      assertThat(later.readyTally().orElseThrow().get(node).node().gpus()).hasSize(3);
      assertThat(later.node(node)).contains(nodes.find(node).await().atMost(BOUND));
    } finally {
      later.onStop(null);
    }
  }

  /** A node's registration (seq 0) and inventory (seq 1), as its agent publishes them. */
  private static void register(String node, HostKind kind, GpuInventoryReported inventory) {
    try (TopicClient topic = new TopicClient()) {
      topic.register(node, kind, inventory);
    }
  }

  private void awaitReady() {
    await("the fleet view ready").atMost(BOUND).until(() -> view.summary().isPresent());
  }

  /** The event at {@code seq} of epoch 1, at a time with nanoseconds PostgreSQL does not keep. */
  private static Envelope<NodeEvent> envelope(
      Random random, String node, int seq, NodeEvent event) {
    return Envelope.of(
        URI.create("urn:fleetwave:test"),
        node,
        Events.time(1, seq).plusNanos(random.nextInt(1_000)),
        1,
        seq,
        event);
  }

  /**
   * A registration with random labels (0 to 2 pool labels of random keys among them), in one of the
   * zones or none, running one of three drivers or none, its OS version sometimes empty.
   */
  private static NodeRegistered registered(Random random, String node, String fleet) {
    Map<String, String> labels = new HashMap<>(Map.of("fleet", fleet));
    for (int i = random.nextInt(3); i > 0; i--) {
      labels.put("label-" + random.nextInt(5), "value-" + random.nextInt(5));
    }
    for (int i = random.nextInt(3); i > 0; i--) {
      labels.put(pick(random, POOL_LABELS), "pool-" + fleet + "-" + random.nextInt(3));
    }
    String driver = random.nextInt(5) == 0 ? null : "580.95." + random.nextInt(3);
    NodeRegistered facts = Events.registered(node, pick(random, KINDS), driver, labels);
    NodeRegisteredBuilder changed =
        NodeRegisteredBuilder.from(facts).zone(random.nextInt(4) == 0 ? null : pick(random, ZONES));
    if (random.nextInt(4) == 0) {
      changed.os(facts.osId(), "");
    }
    return changed.build();
  }

  /** The driver a desired spec asks for: the one the node runs, another, or none. */
  private static String desiredDriver(Random random, NodeRegistered running) {
    return switch (random.nextInt(3)) {
      case 0 -> running.driverVersion();
      case 1 -> "580.95.05";
      default -> null;
    };
  }

  /** A random progress event of generations 1 to 3. */
  private static NodeEvent progress(Random random) {
    long generation = 1L + random.nextInt(3);
    PlannedStep step =
        new PlannedStep(0, StepKind.SET_MIG_MODE, random.nextInt(2), "enabled", 60_000);
    return switch (random.nextInt(7)) {
      case 0 -> new SpecAccepted(generation, List.of(step));
      case 1 -> new StepStarted(generation, step);
      case 2 -> new StepFailed(generation, step, "nvidia-smi timed out", null, 30_000);
      case 3 -> new SpecApplied(generation);
      case 4 -> new SpecRejected(generation, null, "unknown-profile", "no such profile");
      case 5 -> new GateHeld(generation, "draining");
      default -> new NodeBooted("boot-" + random.nextInt(3), null);
    };
  }

  private static ControlFactLog.Subject spec(
      String node, long generation, String driverVersion, Instant at) {
    return new ControlFactLog.Subject(
        node,
        new DesiredSpecSet(
            new NodeSpec(node, generation, driverVersion, List.of(), GatePolicy.OPEN),
            "fleet-view-it",
            at));
  }

  /**
   * Up to 8 GPUs of one model (none at times), each with MIG on or off (no MIG on an L4), health at
   * random; a GPU with MIG on has two 3g.40gb, or up to three random instances in random
   * placements, listed out of placement order.
   */
  private static GpuInventoryReported inventory(Random random) {
    String model = pick(random, MODELS);
    List<Gpu> gpus =
        IntStream.range(0, random.nextInt(9))
            .mapToObj(
                i -> {
                  Gpu gpu =
                      Events.gpu(
                          i, model, random.nextBoolean() ? MigMode.ENABLED : MigMode.DISABLED);
                  GpuBuilder built =
                      GpuBuilder.from(gpu).health(pick(random, List.of(GpuHealth.values())));
                  if (gpu.migMode() == MigMode.ENABLED && random.nextInt(3) > 0) {
                    built.instances(instances(random));
                  }
                  return built.build();
                })
            .toList();
    return new GpuInventoryReported(gpus);
  }

  private static List<GpuInstance> instances(Random random) {
    List<String> profiles = List.of("1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb");
    List<Integer> starts = new ArrayList<>(List.of(0, 1, 2, 3, 4, 5, 6));
    Collections.shuffle(starts, random);
    return IntStream.range(0, random.nextInt(4))
        .mapToObj(i -> new GpuInstance(pick(random, profiles), starts.get(i), 1))
        .toList();
  }

  private static <T> T pick(Random random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }
}
