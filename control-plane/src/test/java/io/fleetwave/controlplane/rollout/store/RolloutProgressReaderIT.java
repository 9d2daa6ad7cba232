package io.fleetwave.controlplane.rollout.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.api.CoreJson;
import io.fleetwave.controlplane.fixtures.MigratedPool;
import io.fleetwave.controlplane.fixtures.ProjectedRollouts;
import io.fleetwave.controlplane.fixtures.ProjectedRollouts.LoggedEvent;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageRequest;
import io.fleetwave.controlplane.rollout.store.RolloutRows.NodeState;
import io.fleetwave.core.rollout.decide.RolloutState;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.testsupport.services.PostgresExtension;
import io.vertx.mutiny.sqlclient.Pool;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The rollout read paths (summary, per-node pages, listing by state) on the migrated schema of a
 * real PostgreSQL, over rollouts written into the projection as the engine writes them, with every
 * node state in the mix. No engine runs here, so seeded active rollouts stay as they are.
 */
@ExtendWith(PostgresExtension.class)
class RolloutProgressReaderIT {
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = CoreJson.mapper();
  private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
  private static final String SPEC =
      """
      {"name": "%s", "target": {"selector": "pool=a"},
       "change": {"migConfig": "all-balanced", "driverVersion": null},
       "strategy": {"waves": ["1", "30%%", "100%%"], "maxUnavailable": "2"}}
      """;

  private static MigratedPool database;
  private static Pool pool;
  private static RolloutProgressReader reader;
  private static RolloutStore store;
  private static RolloutFullView fullView;

  @BeforeAll
  static void migrate(EmbeddedPostgres postgres) {
    database = MigratedPool.on(postgres);
    pool = database.pool();
    reader = new RolloutProgressReader(pool, JSON);
    store = new RolloutStore(pool, JSON);
    fullView = new RolloutFullView(pool, JSON);
  }

  @AfterAll
  static void close() {
    if (database != null) {
      database.close();
    }
  }

  /**
   * Wave 1: the canary, succeeded. Wave 2: ten nodes, six succeeded, two failed, two in flight.
   * Wave 3: twenty pending. Paused by the failure threshold (the engine, "system").
   */
  private static UUID mixed(String name) {
    List<NodeState> nodes = new ArrayList<>();
    // Named to sort after the other waves' nodes: pages follow the wave first.
    nodes.add(done(name + "-zz-canary", 1, "succeeded", null, 0));
    for (int i = 0; i < 10; i++) {
      String node = name + "-w2-" + i;
      if (i < 6) {
        nodes.add(done(node, 2, "succeeded", null, 60 + i));
      } else if (i < 8) {
        nodes.add(done(node, 2, "failed", "GPU 0 is unhealthy after the reset", 60 + i));
      } else {
        nodes.add(
            new NodeState(node, 2, "forward", "in-flight", 7L, null, T0.plusSeconds(70 + i), null));
      }
    }
    for (int i = 0; i < 20; i++) {
      nodes.add(ProjectedRollouts.pending(name + "-w3-" + i, 3));
    }
    List<LoggedEvent> events =
        List.of(
            event("wave-started.v1", 0, "{\"wave\": 1}"),
            event("node-started.v1", 1, "{\"node\": \"" + name + "-zz-canary\"}"),
            event("wave-completed.v1", 30, "{\"wave\": 1, \"succeeded\": 1, \"failed\": 0}"),
            event("wave-started.v1", 60, "{\"wave\": 2}"),
            event("paused.v2", 90, "{\"reason\": \"2 of 10 failed\", \"actor\": \"system\"}"));
    return ProjectedRollouts.insert(
        pool, name, "paused", SPEC.formatted(name), "{}", nodes, true, events);
  }

  @Test
  void theSummaryCountsEachWaveByStateWithItsTimesAndNamesWhoPaused() {
    UUID id = mixed("mixed-summary");
    RolloutOverview summary = reader.summary(id).await().atMost(BOUND).orElseThrow();

    assertThat(summary.name()).isEqualTo("mixed-summary");
    assertThat(summary.state()).isEqualTo(RolloutState.PAUSED);
    assertThat(summary.actor()).isEqualTo("test-admin");
    assertThat(summary.change().path("migConfig").asText()).isEqualTo("all-balanced");
    assertThat(summary.strategy().path("maxUnavailable").asText()).isEqualTo("2");
    assertThat(summary.pausedBy()).isEqualTo("system");
    assertThat(summary.statusReason()).isEqualTo("paused for the test");
    assertThat(summary.currentWave()).isEqualTo(2);
    assertThat(summary.plannedNodes()).isEqualTo(31);
    assertThat(summary.failures()).isEqualTo(2);
    assertThat(summary.counts()).containsExactlyEntriesOf(counts(20, 2, 7, 2));
    assertThat(summary.waves()).extracting(RolloutOverview.Wave::index).containsExactly(1, 2, 3);
    assertThat(summary.waves()).extracting(RolloutOverview.Wave::nodes).containsExactly(1, 10, 20);
    assertThat(summary.waves().get(0).counts()).containsExactlyEntriesOf(counts(0, 0, 1, 0));
    assertThat(summary.waves().get(1).counts()).containsExactlyEntriesOf(counts(0, 2, 6, 2));
    assertThat(summary.waves().get(2).counts()).containsExactlyEntriesOf(counts(20, 0, 0, 0));
    assertThat(summary.waves().get(0).startedAt()).isEqualTo(T0);
    assertThat(summary.waves().get(0).finishedAt()).isEqualTo(T0.plusSeconds(30));
    assertThat(summary.waves().get(1).startedAt()).isEqualTo(T0.plusSeconds(60));
    assertThat(summary.waves().get(1).finishedAt()).isNull();
    assertThat(summary.waves().get(2).startedAt()).isNull();
  }

  @Test
  void theSummaryAgreesWithTheFullView() {
    UUID id = mixed("mixed-agree");
    RolloutOverview summary = reader.summary(id).await().atMost(BOUND).orElseThrow();
    RolloutView full = fullView.view(id).await().atMost(BOUND).orElseThrow();

    assertThat(summary.counts()).isEqualTo(full.progress().counts());
    assertThat(summary.currentWave()).isEqualTo(full.progress().currentWave());
    assertThat(summary.statusReason()).isEqualTo(full.progress().statusReason());
    assertThat(summary.lastSeq()).isEqualTo(full.progress().lastSeq());
    Map<Integer, Map<String, Long>> fullByWave = new TreeMap<>();
    for (RolloutProgress.Wave wave : full.progress().waves()) {
      fullByWave.put(
          wave.number(),
          wave.nodes().stream()
              .collect(Collectors.groupingBy(view -> view.row().state(), Collectors.counting())));
    }
    Map<Integer, Map<String, Long>> summaryByWave = new TreeMap<>();
    for (RolloutOverview.Wave wave : summary.waves()) {
      summaryByWave.put(
          wave.index(),
          wave.counts().entrySet().stream()
              .filter(e -> e.getValue() > 0)
              .collect(Collectors.toMap(Map.Entry::getKey, e -> (long) e.getValue())));
    }
    assertThat(summaryByWave).isEqualTo(fullByWave);
  }

  @Test
  void nodesArePagedByWaveThenNameAndEveryPageTogetherIsTheWholeRollout() {
    UUID id = mixed("mixed-pages");
    List<String> expected =
        fullView.view(id).await().atMost(BOUND).orElseThrow().progress().waves().stream()
            .flatMap(
                w ->
                    w.nodes().stream()
                        .map(view -> view.row().node())
                        .sorted()
                        .map(node -> w.number() + "/" + node))
            .toList();
    List<String> paged = new ArrayList<>();
    for (int page = 0; page < 5; page++) {
      Page<RolloutNodeView> nodes = nodes(id, RolloutNodeFilter.ALL, page, 7);
      assertThat(nodes.total()).isEqualTo(31);
      assertThat(nodes.size()).isEqualTo(7);
      nodes.items().forEach(n -> paged.add(n.row().wave() + "/" + n.row().node()));
    }
    assertThat(paged).hasSize(31).isEqualTo(expected);
  }

  @Test
  void nodesAreFilteredByStateAndWaveWithReasonsAndTimings() {
    UUID id = mixed("mixed-filters");
    Page<RolloutNodeView> failed = nodes(id, filter(List.of("failed"), List.of()), 0, 500);
    assertThat(failed.total()).isEqualTo(2);
    assertThat(failed.items())
        .allSatisfy(
            n -> {
              assertThat(n.row().state()).isEqualTo("failed");
              assertThat(n.row().reason()).isEqualTo("GPU 0 is unhealthy after the reset");
              assertThat(n.elapsedMillis()).isEqualTo(20_000L);
              assertThat(n.row().generation()).isEqualTo(7L);
            });

    Page<RolloutNodeView> secondWaveUnfinished =
        nodes(id, filter(List.of("in-flight", "pending"), List.of(2)), 0, 500);
    assertThat(secondWaveUnfinished.items())
        .extracting(view -> view.row().node())
        .containsExactly("mixed-filters-w2-8", "mixed-filters-w2-9");
    assertThat(secondWaveUnfinished.items().getFirst().row().finishedAt()).isNull();
    assertThat(secondWaveUnfinished.items().getFirst().elapsedMillis()).isPositive();

    Page<RolloutNodeView> waves1And3 = nodes(id, filter(List.of(), List.of(1, 3)), 0, 500);
    assertThat(waves1And3.total()).isEqualTo(21);
    assertThat(waves1And3.items()).extracting(view -> view.row().wave()).containsOnly(1, 3);

    assertThat(nodes(id, filter(List.of("succeeded"), List.of(3)), 0, 500).total()).isZero();
  }

  @Test
  void aRolloutNotLoggedYetReadsItsPlannedNodesAsPending() {
    List<NodeState> planned = new ArrayList<>();
    planned.add(ProjectedRollouts.pending("unlogged-canary", 1));
    for (int i = 0; i < 4; i++) {
      planned.add(ProjectedRollouts.pending("unlogged-" + i, 2));
    }
    UUID id =
        ProjectedRollouts.insert(
            pool,
            "unlogged",
            "created",
            SPEC.formatted("unlogged"),
            "{}",
            planned,
            false,
            List.of());

    RolloutOverview summary = reader.summary(id).await().atMost(BOUND).orElseThrow();
    assertThat(summary.counts()).containsExactlyEntriesOf(counts(5, 0, 0, 0));
    assertThat(summary.waves()).extracting(RolloutOverview.Wave::nodes).containsExactly(1, 4);
    assertThat(summary.pausedBy()).isNull();

    Page<RolloutNodeView> pending = nodes(id, filter(List.of("pending"), List.of(2)), 0, 3);
    assertThat(pending.total()).isEqualTo(4);
    assertThat(pending.items())
        .extracting(view -> view.row().node())
        .containsExactly("unlogged-0", "unlogged-1", "unlogged-2");
    assertThat(pending.items()).allSatisfy(n -> assertThat(n.row().phase()).isEqualTo("forward"));
    assertThat(nodes(id, filter(List.of("failed"), List.of()), 0, 50).total()).isZero();
  }

  @Test
  void anUnknownRolloutHasNoSummaryAndNoNodes() {
    UUID unknown = UUID.randomUUID();
    assertThat(reader.summary(unknown).await().atMost(BOUND)).isEmpty();
    assertThat(
            reader
                .nodes(unknown, RolloutNodeFilter.ALL, new PageRequest(0, 50))
                .await()
                .atMost(BOUND))
        .isEmpty();
  }

  @Test
  void rolloutsAreListedByStateWithTheirPlannedNodeCount() {
    UUID paused = mixed("listed-paused");
    UUID completed =
        ProjectedRollouts.insert(
            pool,
            "listed-completed",
            "completed",
            SPEC.formatted("listed-completed"),
            "{}",
            List.of(done("listed-completed-0", 1, "succeeded", null, 0)),
            true,
            List.of());

    Page<RolloutSummary> onlyPaused =
        store.list(new PageRequest(0, 500), List.of(RolloutState.PAUSED)).await().atMost(BOUND);
    assertThat(onlyPaused.items())
        .extracting(RolloutSummary::state)
        .containsOnly(RolloutState.PAUSED);
    assertThat(onlyPaused.items())
        .extracting(RolloutSummary::id)
        .contains(paused)
        .doesNotContain(completed);
    assertThat(onlyPaused.total()).isEqualTo(onlyPaused.items().size());
    assertThat(onlyPaused.items())
        .filteredOn(r -> r.id().equals(paused))
        .singleElement()
        .satisfies(r -> assertThat(r.plannedNodes()).isEqualTo(31));

    Page<RolloutSummary> either =
        store
            .list(new PageRequest(0, 1), List.of(RolloutState.PAUSED, RolloutState.COMPLETED))
            .await()
            .atMost(BOUND);
    assertThat(either.items()).hasSize(1);
    assertThat(either.total()).isEqualTo(onlyPaused.total() + 1);

    Page<RolloutSummary> all = store.list(new PageRequest(0, 500), List.of()).await().atMost(BOUND);
    assertThat(all.items()).extracting(RolloutSummary::id).contains(paused, completed);
  }

  @Test
  void theSummaryOfTenThousandNodesStaysSmall() throws Exception {
    List<NodeState> nodes = new ArrayList<>();
    nodes.add(done("big-canary", 1, "succeeded", null, 0));
    for (int i = 0; i < 9_999; i++) {
      String node = String.format("big-%05d", i);
      nodes.add(
          i < 1_000
              ? done(node, 2, i % 100 == 0 ? "failed" : "succeeded", "a reason", i)
              : ProjectedRollouts.pending(node, i < 5_000 ? 2 : 3));
    }
    UUID id =
        ProjectedRollouts.insert(
            pool, "big", "running", SPEC.formatted("big"), "{}", nodes, true, List.of());

    RolloutOverview summary = reader.summary(id).await().atMost(BOUND).orElseThrow();
    assertThat(summary.plannedNodes()).isEqualTo(10_000);
    assertThat(summary.failures()).isEqualTo(10);
    int summaryBytes = JSON.writeValueAsBytes(summary).length;
    int pageBytes = JSON.writeValueAsBytes(nodes(id, RolloutNodeFilter.ALL, 0, 500)).length;
    System.out.printf(
        "10,000-node rollout: summary %,d bytes, a page of 500 nodes %,d bytes%n",
        summaryBytes, pageBytes);
    assertThat(summaryBytes).as("summary bytes").isLessThan(4_096);
    assertThat(pageBytes).as("bytes of a page of 500 nodes").isLessThan(256 * 1024);
  }

  @Test
  void theFullViewOfTenThousandNodesIsBoundedAndCountsThemAll() throws Exception {
    UUID id = planned("full-big", 10_000, 1_000);

    RolloutView view = fullView.view(id).await().atMost(BOUND).orElseThrow();
    byte[] bytes = JSON.writeValueAsBytes(view);
    System.out.printf("10,000-node rollout: full view %,d bytes%n", bytes.length);
    assertThat(bytes.length).as("full view bytes").isLessThanOrEqualTo(256 * 1024);
    assertThat(view.progress().counts())
        .containsEntry("succeeded", 1_000)
        .containsEntry("pending", 9_000);
    assertThat(view.progress().nodesTruncated()).isTrue();
    List<RolloutNodeView> listed =
        view.progress().waves().stream().flatMap(w -> w.nodes().stream()).toList();
    assertThat(listed).hasSize(RolloutFullView.FULL_VIEW_NODES);
    assertThat(listed.getFirst().row().node()).isEqualTo("full-big-000000");
    assertThat(view.plan().get("truncated").asBoolean()).isTrue();
    assertThat(view.plan().get("plannedNodes").asInt()).isEqualTo(10_000);
    int planned = 0;
    for (var wave : view.plan().get("waves")) {
      assertThat(wave.get("batches")).isNotEmpty();
      assertThat(wave.get("batches").size())
          .isLessThanOrEqualTo(ShownPlan.LISTED)
          .isLessThanOrEqualTo(wave.get("batchCount").asInt());
      for (var batch : wave.get("batches")) {
        assertThat(batch.has("nodes")).as("a batch lists no nodes").isFalse();
        assertThat(batch.get("zones")).isNotEmpty();
        assertThat(batch.get("nodeCount").asInt()).isPositive();
      }
      planned += wave.get("nodeCount").asInt();
    }
    assertThat(planned).as("nodes counted over the waves").isEqualTo(10_000);
  }

  @Test
  void theFullViewOfASmallRolloutListsEveryNodeAndThePlanAsPlanned() throws Exception {
    UUID id = planned("full-small", 12, 3);

    RolloutView view = fullView.view(id).await().atMost(BOUND).orElseThrow();
    assertThat(view.progress().nodesTruncated()).isFalse();
    assertThat(view.progress().waves().stream().mapToInt(w -> w.nodes().size()).sum())
        .isEqualTo(12);
    assertThat(view.progress().counts()).containsEntry("succeeded", 3).containsEntry("pending", 9);
    assertThat(view.plan().has("truncated")).isFalse();
    assertThat(
            view.plan()
                .get("waves")
                .get(0)
                .get("batches")
                .get(0)
                .get("nodes")
                .get(0)
                .get("node")
                .asText())
        .isEqualTo("full-small-000000");
  }

  @Test
  void theFullViewReadsTheStoredPlanOnceAndItsProgressOnEveryCall() throws Exception {
    UUID id = planned("full-held", 600, 100);
    RolloutView first = fullView.view(id).await().atMost(BOUND).orElseThrow();
    assertThat(first.plan().get("truncated").asBoolean()).isTrue();

    // No statement changes a stored request or plan: only a view that reads them on every call
    // could see this. Its progress moves as the engine would move it.
    execute(
        "UPDATE rollouts SET spec = '{}'::jsonb, plan = '{\"replaced\": true}'::jsonb,"
            + " state = 'paused', status_reason = 'checking', last_seq = last_seq + 5"
            + " WHERE id = $1",
        id);
    execute(
        "UPDATE rollout_node_states SET state = 'failed', reason = 'GPU 3 lost'"
            + " WHERE rollout = $1 AND state = 'succeeded'",
        id);
    RolloutView second = fullView.view(id).await().atMost(BOUND).orElseThrow();

    assertThat(second.plan()).as("the plan as first read").isEqualTo(first.plan());
    assertThat(second.spec()).as("the request as first read").isEqualTo(first.spec());
    assertThat(second.state()).isEqualTo(RolloutState.PAUSED);
    assertThat(second.progress().statusReason()).isEqualTo("checking");
    assertThat(second.progress().lastSeq()).isEqualTo(first.progress().lastSeq() + 5);
    assertThat(second.progress().counts())
        .containsEntry("failed", 100)
        .containsEntry("succeeded", 0)
        .containsEntry("pending", 500);
    assertThat(second.progress().waves().getFirst().nodes().getFirst().row().reason())
        .isEqualTo("GPU 3 lost");
  }

  @Test
  void aRolloutNotFoundIsNotRememberedAsMissing() {
    UUID id = UUID.randomUUID();
    assertThat(fullView.view(id).await().atMost(BOUND)).isEmpty();

    execute(
        "INSERT INTO rollouts (id, name, spec, plan, state, created_by) VALUES"
            + " ($1, 'created-since', '{\"name\": \"created-since\"}', '{\"waves\": []}',"
            + " 'created', 'test-admin')",
        id);

    RolloutView view = fullView.view(id).await().atMost(BOUND).orElseThrow();
    assertThat(view.name()).isEqualTo("created-since");
    assertThat(view.spec().path("name").asText()).as("its request").isEqualTo("created-since");
  }

  @Test
  void theHeldPlansStayWithinTheirBoundAndAnEvictedOneIsReadAgain() throws Exception {
    List<UUID> ids = List.of(planned("held-a", 40, 0), planned("held-b", 40, 0));
    RolloutFullView small = new RolloutFullView(pool, JSON, 1);
    List<JsonNode> plans = new ArrayList<>();
    for (UUID id : ids) {
      plans.add(small.view(id).await().atMost(BOUND).orElseThrow().plan());
    }
    // Each complete 40-node plan is far above a bound of one character: none stays held.
    assertThat(small.heldChars()).isZero();
    for (int i = 0; i < ids.size(); i++) {
      assertThat(small.view(ids.get(i)).await().atMost(BOUND).orElseThrow().plan())
          .isEqualTo(plans.get(i));
    }

    RolloutFullView roomy = new RolloutFullView(pool, JSON, 64L << 20);
    ids.forEach(id -> roomy.view(id).await().atMost(BOUND));
    assertThat(roomy.heldChars())
        .as("both held")
        .isGreaterThan(plans.get(0).toString().length())
        .isLessThanOrEqualTo(64L << 20);
  }

  private static void execute(String sql, UUID id) {
    pool.preparedQuery(sql).execute(io.vertx.mutiny.sqlclient.Tuple.of(id)).await().atMost(BOUND);
  }

  /**
   * A running rollout with the real planner's plan over {@code nodes}, the first {@code done}
   * succeeded.
   */
  private static UUID planned(String prefix, int nodes, int done) throws Exception {
    var plan = io.fleetwave.core.rollout.plan.LargeFleetPlans.plan(prefix, nodes, 1);
    List<NodeState> seeded = new ArrayList<>();
    int index = 0;
    int wave = 0;
    for (var planned : plan.waves()) {
      wave++;
      for (var node : planned.nodes()) {
        seeded.add(
            index < done
                ? done(node.node(), wave, "succeeded", null, index)
                : ProjectedRollouts.pending(node.node(), wave));
        index++;
      }
    }
    return ProjectedRollouts.insert(
        pool,
        prefix,
        "running",
        JSON.writeValueAsString(io.fleetwave.core.rollout.plan.LargeFleetPlans.spec(prefix)),
        plan,
        JSON,
        seeded,
        true,
        List.of());
  }

  private static Page<RolloutNodeView> nodes(
      UUID id, RolloutNodeFilter filter, int page, int size) {
    return reader
        .nodes(id, filter, new PageRequest(page, size))
        .await()
        .atMost(BOUND)
        .orElseThrow();
  }

  private static RolloutNodeFilter filter(List<String> states, List<Integer> waves) {
    return new RolloutNodeFilter(states, waves);
  }

  private static NodeState done(
      String node, int wave, String state, String reason, int startSecond) {
    return new NodeState(
        node,
        wave,
        "forward",
        state,
        7L,
        reason,
        T0.plusSeconds(startSecond),
        T0.plusSeconds(startSecond + 20));
  }

  private static LoggedEvent event(String type, int second, String data) {
    return new LoggedEvent("io.fleetwave.rollout." + type, T0.plusSeconds(second), data);
  }

  private static Map<String, Integer> counts(int pending, int inFlight, int succeeded, int failed) {
    Map<String, Integer> counts = new java.util.LinkedHashMap<>();
    counts.put("pending", pending);
    counts.put("in-flight", inFlight);
    counts.put("succeeded", succeeded);
    counts.put("failed", failed);
    counts.put("skipped", 0); // nodes revoked before their start: none in these rollouts
    return counts;
  }
}
