package io.fleetwave.controlplane.rollout.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.fixtures.AppDatabase;
import io.fleetwave.controlplane.fixtures.FleetNodes;
import io.fleetwave.controlplane.fixtures.FleetNodes.Node;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.controlplane.rollout.drain.NodeDrain;
import io.fleetwave.controlplane.rollout.driver.DriverChangeExecutor;
import io.fleetwave.controlplane.spec.SpecService;
import io.fleetwave.core.driver.DriverArtifactResolver;
import io.fleetwave.core.rollout.decide.DeciderHarness;
import io.fleetwave.core.rollout.decide.EffectReport;
import io.fleetwave.core.rollout.decide.RestorePoints;
import io.fleetwave.core.rollout.decide.RolloutRules;
import io.fleetwave.core.rollout.decide.RolloutRun;
import io.fleetwave.core.rollout.plan.FailureAction;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.testsupport.network.BlackHoleProxy;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgBuilder;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
import io.vertx.mutiny.sqlclient.Tuple;
import io.vertx.pgclient.PgConnectOptions;
import jakarta.inject.Inject;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A wave start's specs go out in bounded chunks, each its own transaction: while one node of the
 * wave is held (here its spec lock, as a concurrent spec change of that node would hold it), the
 * nodes of the other chunks already have their signed specs on fleet.node-desired. Sent as one
 * batch, none would go out before the held node is free.
 */
@QuarkusTest
class SpecChunksIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final int CHUNK = 2;
  private static final List<String> NODES =
      List.of("chunks-1", "chunks-2", "chunks-3", "chunks-4", "chunks-5");
  private static final String HELD = "chunks-5";

  @Inject Vertx vertx;

  @Inject Pool pool;
  @Inject SpecService specs;
  @Inject NodeDrain drain;
  @Inject DriverChangeExecutor drivers;
  @Inject DriverArtifactResolver resolver;

  @Test
  void theOtherChunksSpecsGoOutWhileOneNodeOfTheWaveIsHeld() throws Exception {
    FleetNodes.publishAndAwait(
        NODES.stream()
            .map(n -> new Node(n, HostKind.UBUNTU, "z1", "550.127.05", "H100-80GB", 1, Map.of()))
            .toList());
    Map<String, String> zones = new LinkedHashMap<>();
    NODES.forEach(n -> zones.put(n, "z1"));
    RolloutRules rules =
        DeciderHarness.rules(
            zones, NODES.size(), null, "100%", "100%", FailureAction.PAUSE, false, Duration.ZERO);
    RolloutRun run = startedRun(rules);
    NodeEffects effects = new NodeEffects(specs, drain, drivers, resolver, pool, BOUND, CHUNK, 2);
    Queue<EffectReport> reports = new ConcurrentLinkedQueue<>();
    AtomicInteger wakeUps = new AtomicInteger();

    try (TopicClient topic = new TopicClient()) {
      SqlConnection holder = pool.getConnection().await().atMost(BOUND);
      Transaction held = holder.begin().await().atMost(BOUND);
      try {
        // The lock the spec batch takes on each of its nodes (DesiredSpecs.lockNodes).
        holder
            .preparedQuery("SELECT pg_advisory_xact_lock(hashtextextended($1, 4))")
            .execute(Tuple.of("desired-spec:" + HELD))
            .await()
            .atMost(BOUND);

        effects.carryOut(run, rules, NODES, reports, wakeUps::incrementAndGet);

        List<String> others = NODES.stream().filter(n -> !n.equals(HELD)).toList();
        await(
                "the specs of "
                    + others
                    + " on "
                    + Topics.NODE_DESIRED
                    + " while "
                    + HELD
                    + " is held")
            .atMost(BOUND)
            .until(
                () ->
                    others.stream()
                        .allMatch(n -> topic.lastSpecGeneration(n).equals(Optional.of(1L))));
        assertThat(topic.lastSpecGeneration(HELD)).as("the held node's spec, while held").isEmpty();
        assertThat(wakeUps.get()).as("the engine woken as chunks complete").isPositive();
      } finally {
        held.rollback().await().atMost(BOUND);
        holder.close().await().atMost(BOUND);
      }
      await("the held node's spec once it is free")
          .atMost(BOUND)
          .until(() -> topic.lastSpecGeneration(HELD).equals(Optional.of(1L)));
    }
    assertThat(reports).as("nodes not handed over").isEmpty();
  }

  /**
   * PostgreSQL refusing connections, or a connection that answers nothing: the wave's specs were
   * not saved, so none was sent, and that fails no node: every node is handed back to be sent again
   * (as when the broker is away). A database outage had failed the node whose spec was on its way
   * ("the spec could not be published: ... the database system is shutting down"), and with a zero
   * failure threshold paused the rollout.
   */
  @Test
  void specsThePostgresOutageKeptFromBeingSavedAreSentAgainAndFailNoNode() throws Exception {
    Map<String, String> zones = new LinkedHashMap<>();
    NODES.forEach(n -> zones.put(n, "z1"));
    RolloutRules rules =
        DeciderHarness.rules(
            zones, NODES.size(), null, "100%", "100%", FailureAction.PAUSE, false, Duration.ZERO);
    List<String> nodes = NODES.subList(0, 2);
    PgConnectOptions direct = AppDatabase.options();
    try (BlackHoleProxy proxy = BlackHoleProxy.to(direct.getHost(), direct.getPort())) {
      proxy.blackHole();
      int closedPort;
      try (ServerSocket socket = new ServerSocket(0)) {
        closedPort = socket.getLocalPort();
      }
      for (int port : new int[] {closedPort, proxy.port()}) {
        Pool away =
            PgBuilder.pool()
                .connectingTo(AppDatabase.at(port).setConnectTimeout(1_000))
                .using(vertx)
                .build();
        try {
          NodeEffects effects =
              new NodeEffects(specs, drain, drivers, resolver, away, Duration.ofSeconds(1), 1, 2);
          Queue<EffectReport> reports = new ConcurrentLinkedQueue<>();
          List<String> again = new java.util.concurrent.CopyOnWriteArrayList<>();
          effects.carryOut(startedRun(rules), rules, nodes, reports, () -> {}, again::addAll);
          await("the nodes handed back to be sent again (database on port " + port + ")")
              .atMost(BOUND)
              .until(() -> again.size() == nodes.size() || !reports.isEmpty());
          assertThat(reports).as("nodes failed by the database's outage").isEmpty();
          assertThat(again).containsExactlyInAnyOrderElementsOf(nodes);
        } finally {
          away.close().await().atMost(BOUND);
        }
      }
    }
  }

  /** A rollout of one wave whose nodes all started, generation 1, as the log would have it. */
  private static RolloutRun startedRun(RolloutRules rules) {
    UUID id = UUID.randomUUID();
    Instant now = Instant.now();
    RolloutRun run =
        RolloutRun.created(
            id, new RolloutCreated("chunks", List.of(NODES), null, null, "it"), 1, 0);
    List<RolloutEvent> started = new ArrayList<>();
    for (String node : NODES) {
      started.add(
          new NodeStarted(1, node, Phase.FORWARD, 1, RestorePoints.of(rules.plan(node), null)));
    }
    long seq = 1;
    for (RolloutEvent event : started) {
      run.apply(Envelope.of(URI.create("test:chunks"), id.toString(), now, 0, ++seq, event));
    }
    return run;
  }
}
