package io.fleetwave.systemtier;

import static io.fleetwave.systemtier.JsonConsole.saying;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.controlplane.fixtures.BrokerProcess;
import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.OidcProviderStandIn;
import io.fleetwave.controlplane.fixtures.RolloutApi;
import io.fleetwave.controlplane.logging.LogContext;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.embedded.LoopbackPorts;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.systemtier.JsonConsole.Line;
import io.fleetwave.testsupport.network.BlackHoleProxy;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The system tier (issue 33): what ships, as separate processes, under faults. A Kafka broker
 * ({@link BrokerProcess}) and a PostgreSQL server ({@link EmbeddedPostgres}) each in a process of
 * its own, the database reached through a TCP proxy that can black-hole it ({@link
 * BlackHoleProxy}), an OIDC provider stand-in (discovery and keys over HTTP), two replicas of the
 * packaged control plane ({@code target/quarkus-app}, node identity required as it ships), real
 * agents ({@code AgentMain}) on three host kinds ({@link RealAgents}) and a simulated fleet process
 * ({@code FleetMain}) for scale, every node enrolled and signing.
 *
 * <p>It is the chaos run, in every build. While a MIG rollout and a driver rollout over the
 * simulated fleet run, the faults strike one after the other, each once the system has recovered
 * from the one before, in an order drawn from a seed it prints ({@code -Dfault.seed} replays it):
 * the leading replica SIGKILLed (and replaced, as Kubernetes would), the broker stopped for 60 s,
 * PostgreSQL stopped for 65 s, the database connection black-holed for 30 s, a real agent of a host
 * kind drawn from the seed SIGKILLed and started again (a new epoch). Afterwards: the rollout
 * completed with every node started once and none skipped, every node's events on the topic
 * numbered without a gap and all of them projected with none missed, readiness UP on both replicas,
 * a rebuild from the log equal to the live tables. Prints each fault's recovery time and the events
 * lost.
 *
 * <p>It replaced the chaos run that ran only on request (ChaosRunIT, a simulated fleet and one
 * packaged control plane) and the single-fault tests of one packaged control plane (BrokerOutageIT,
 * PostgresOutageIT), whose checks it makes on every replica: the SSE stream of a rollout open
 * across the broker's outage, the audit entries held and written once it is back, one log line when
 * Kafka or PostgreSQL is lost and one when it is back, no error logged for the broker's outage. Its
 * fleets enroll from one address, as nodes behind one NAT do, with the shipped enrolment bounds: a
 * successful enrolment gives its source's attempt back.
 */
class SystemTierIT {
  /** The faults, struck one after the other in an order drawn from {@link #SEED}. */
  private enum Fault {
    KILL_THE_LEADER,
    STOP_THE_BROKER,
    STOP_POSTGRES,
    BLACK_HOLE_THE_DATABASE,
    CRASH_AN_AGENT
  }

  /** Printed with the order it draws; {@code -Dfault.seed=N} runs that order again. */
  private static final long SEED = Long.getLong("fault.seed", System.nanoTime());

  private static final Duration BROKER_OUTAGE = Duration.ofSeconds(60);
  // Longer than a minute: a record waiting more than 60 s is where the throttled commit strategy's
  // watchdog (turned off, docs/reliability.md) would close the consumer for good.
  private static final Duration POSTGRES_OUTAGE = Duration.ofSeconds(65);
  private static final Duration BLACK_HOLE = Duration.ofSeconds(30);
  // Each fault moves each rollout two to four nodes (they are held between faults, Progress), four
  // faults release them, so 16 at most are done at the last one: the rest runs after it.
  private static final int MIG_NODES = 22;
  private static final int DRIVER_NODES = 18;
  private static final int SIMULATED = MIG_NODES + DRIVER_NODES;
  private static final String PREFIX = "sys-";
  // Each simulated node takes this long to converge its spec: the rollout outlasts the faults.
  private static final Duration APPLY = Duration.ofSeconds(4);
  // The simulated agents wait for the broker longer than its outage: they drop nothing.
  private static final Duration RIDE_OUT = BROKER_OUTAGE.plusMinutes(2);
  private static final Duration SETTLE_BOUND = Duration.ofMinutes(3);
  private static final Duration NOTICE_BOUND = Duration.ofSeconds(30);
  private static final Duration RECOVERY_BOUND = Duration.ofSeconds(120);
  private static final Duration COMPLETION_BOUND = Duration.ofMinutes(6);

  private static final String KAFKA_CHECK = "fleetwave-kafka";
  private static final Predicate<Line> UNREACHABLE_LOG = kafkaProbe("Kafka unreachable");
  private static final Predicate<Line> REACHABLE_LOG = kafkaProbe("Kafka reachable");
  private static final Predicate<Line> ENGINE_WAITING_LOG =
      saying("rollout engine waiting for Kafka");
  private static final Predicate<Line> AUDIT_HELD_LOG = saying("not written yet, trying again");
  private static final Predicate<Line> AUDIT_WRITTEN_LOG = saying("written on a later attempt");
  private static final Predicate<Line> WAITING_LOG = saying("projection waiting for PostgreSQL: ");
  private static final Predicate<Line> RESUMED_LOG =
      saying("projection resumed: PostgreSQL is back");
  private static final String PROJECTION_CHECK = "fleetwave-projection";
  private static final Predicate<Line> KEYS_LOG = saying("cannot read the node keys");

  /** Waves of 2 and the rest, two nodes at a time, no failure allowed. */
  private static final String ROLLOUT =
      """
      {"name": "%s", "target": {"selector": "%s"}, "change": %s,
       "strategy": {"waves": ["2", "100%%"], "maxUnavailable": "2", "soakSeconds": 0,
                    "failureThreshold": {"perWave": "0", "total": "0", "action": "pause"},
                    "manualPromotion": false, "nodeTimeoutSeconds": 900}}
      """;

  private static final String MIG_ROLLOUT =
      ROLLOUT.formatted("system-mig", "pool=mig", "{\"migConfig\": \"all-1g.10gb\"}");
  private static final String DRIVER_ROLLOUT =
      ROLLOUT.formatted("system-driver", "pool=driver", "{\"driverVersion\": \"580.95.05\"}");

  // Added to by a rollout hold's thread too (Progress).
  private final List<String> figures = Collections.synchronizedList(new ArrayList<>());

  @Test
  @SuppressWarnings(
      "try") // the fleet and agents are closed before the rebuild, again (a no-op) after
  void theShippedProcessesRideOutEachFaultWhileARolloutRunsLosingNothing() throws Exception {
    // A directory of its own per run: an agent's host tree keeps state (its epoch) across runs.
    Path work =
        Files.createTempDirectory(Files.createDirectories(Path.of("target")), "system-tier-it-")
            .toAbsolutePath();
    System.out.println("System tier: logs and host trees in " + work);
    CommandSigner signer = CommandSigner.generate();
    Path publicKey = Files.writeString(work.resolve("command-key.pem"), signer.publicKeyPem());
    Path fleetFile = Files.writeString(work.resolve("fleet.yaml"), fleetYaml());
    // The control plane hands each driver change to the simulated fleet's webhook, signed.
    String webhookSecret = webhookSecret();
    Path webhookSecretFile =
        Files.writeString(work.resolve("driver-webhook.secret"), webhookSecret);
    int webhookPort = LoopbackPorts.belowTheEphemeralRange();
    Instant began = Instant.now();
    try (EmbeddedPostgres postgres = EmbeddedPostgres.start();
        BlackHoleProxy database = BlackHoleProxy.to("localhost", postgres.port());
        BrokerProcess broker = BrokerProcess.start(work.resolve("broker.log"));
        OidcProviderStandIn provider = OidcProviderStandIn.start()) {
      FleetTopics.create(broker);
      NodeHistories histories = new NodeHistories(postgres);
      try (Replicas replicas =
              Replicas.start(
                  2,
                  environment(broker, database, signer, webhookPort, webhookSecret),
                  provider,
                  work);
          // The fleet process first: its JVM starts while the real agents start and register.
          FleetProcess fleet =
              FleetProcess.start(
                  broker.bootstrapServers(),
                  fleetFile,
                  publicKey,
                  FleetProcess.Enrolling.with(
                      replicas.first(), fleetFile, work.resolve("join-tokens")),
                  "384m",
                  Duration.ofSeconds(5),
                  APPLY,
                  work.resolve("fleet.log"),
                  "--kafka-wait",
                  RIDE_OUT.toString(),
                  "--driver-webhook-port",
                  Integer.toString(webhookPort),
                  "--driver-webhook-secret-file",
                  webhookSecretFile.toString());
          RealAgents agents =
              RealAgents.start(
                  work,
                  PREFIX + "agent",
                  "pool=agents",
                  broker.bootstrapServers(),
                  replicas::first,
                  publicKey,
                  node -> registered(histories, node))) {
        int nodes = SIMULATED + agents.nodes().size();
        await(
                "every node (%d, %d of them real agents) projected with its GPUs"
                    .formatted(nodes, agents.nodes().size()))
            .atMost(SETTLE_BOUND)
            .pollInterval(Duration.ofMillis(500))
            .until(
                () -> {
                  fleet.requireAlive();
                  agents.requireAlive();
                  return histories.count(
                          "SELECT count(DISTINCT node) FROM gpus WHERE node LIKE '" + PREFIX + "%'")
                      == nodes;
                });
        Duration upAfter = Duration.between(began, Instant.now());
        RolloutApi creating = rollouts(replicas);
        String mig = creating.create(MIG_ROLLOUT).get("id").asText();
        String driver = creating.create(DRIVER_ROLLOUT).get("id").asText();
        Progress progress = new Progress(histories, replicas, mig, driver, figures);

        Random random = new Random(SEED);
        List<Fault> order = new ArrayList<>(List.of(Fault.values()));
        Collections.shuffle(order, random);
        System.out.printf(
            "System tier: the faults in the order %s (-Dfault.seed=%d)%n", order, SEED);
        String probe = agents.nodes().getFirst();
        for (Fault fault : order) {
          if (fault != Fault.CRASH_AN_AGENT) {
            progress.release(); // the rollouts move into the fault
          }
          switch (fault) {
            case KILL_THE_LEADER -> killTheLeader(replicas, histories, progress);
            case STOP_THE_BROKER -> stopTheBroker(broker, replicas, histories, progress, probe);
            case STOP_POSTGRES -> stopPostgres(postgres, replicas, histories, progress, probe);
            case BLACK_HOLE_THE_DATABASE -> blackHoleTheDatabase(database, replicas, progress);
            case CRASH_AN_AGENT ->
                crashAnAgent(
                    agents, histories, agents.nodes().get(random.nextInt(agents.nodes().size())));
          }
        }

        progress.release(); // the rest of both rollouts, after the faults
        // Asked of a replica running now: the one the rollouts were created on may be the one
        // killed.
        RolloutApi rollouts = rollouts(replicas);
        assertCompleted(rollouts, mig, MIG_NODES, work.resolve("mig-rollout-events.json"));
        assertCompleted(rollouts, driver, DRIVER_NODES, work.resolve("driver-rollout-events.json"));
        assertThat(
                histories.count(
                    "SELECT count(*) FROM nodes WHERE name LIKE 'sys-drv-%'"
                        + " AND driver_version = '580.95.05'"))
            .as("nodes on the new driver")
            .isEqualTo(DRIVER_NODES);

        fleet.close(); // the rebuild compares with a projection that no longer moves
        agents.close();
        NodeHistories.OnTopic onTopic = NodeHistories.onTopic(broker.bootstrapServers(), PREFIX);
        assertThat(onTopic.newest()).as("nodes with events on the topic").hasSize(nodes);
        assertThat(onTopic.missing())
            .as("seqs missing on the topic, in any run of any node")
            .isZero();
        await("every node's events on the topic projected")
            .atMost(SETTLE_BOUND)
            .until(() -> histories.positions(PREFIX).equals(onTopic.newest()));
        assertThat(histories.seqGaps(PREFIX)).as("events the projection never got").isEmpty();
        for (ControlPlaneProcess replica : replicas.running()) {
          assertThat(api(replica).status("/q/health/ready"))
              .as("readiness of the replica on port %d", replica.port())
              .isEqualTo(200);
        }
        assertThat(replicas.leader(histories)).as("a replica leads the engine").isPresent();
        JsonNode rebuild = api(replicas.first()).rebuild();
        assertThat(rebuild.path("equal").asBoolean()).as("rebuild: %s", rebuild).isTrue();
        assertLinesAboutARolloutOrANodeSayWhich(replicas, mig);

        System.out.printf(
            "System tier: 2 control plane replicas, %d real agents (%s), %d simulated nodes,"
                + " every node enrolled and signing; all up after %.1f s%n"
                + "%s%n"
                + "  MIG rollout of %d nodes and driver rollout of %d nodes completed, every node"
                + " started once, none skipped%n"
                + "  events on the topic: %d, seqs missing: 0, projected: all, events lost: 0;"
                + " rebuild equal: %s; took %.0f s in all%n",
            agents.nodes().size(),
            String.join(", ", agents.nodes()),
            SIMULATED,
            seconds(upAfter),
            String.join("\n", figures),
            MIG_NODES,
            DRIVER_NODES,
            onTopic.events(),
            rebuild.path("equal").asBoolean(),
            seconds(Duration.between(began, Instant.now())));
      }
    }
  }

  /**
   * A real agent SIGKILLed and started again, as its supervisor would: it speaks again in a new
   * epoch (a read-only host with a new key, enrolled with a new join token), with every event of
   * the epoch it was killed in kept (the checks at the end).
   */
  private void crashAnAgent(RealAgents agents, NodeHistories histories, String node)
      throws Exception {
    long epoch = epoch(histories, node);
    Instant crashed = Instant.now();
    agents.crashAndRestart(node);
    await("the agent of %s speaking again in a new epoch".formatted(node))
        .atMost(RECOVERY_BOUND)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              agents.requireAlive();
              return epoch(histories, node) > epoch;
            });
    figures.add(
        "  SIGKILL of the agent of %s: its events projected again, in a new epoch, after %.1f s"
            .formatted(node, seconds(Duration.between(crashed, Instant.now()))));
  }

  /** The epoch of the node's newest projected event. */
  private static long epoch(NodeHistories histories, String node) throws java.sql.SQLException {
    String position = histories.positions(node).get(node);
    return position == null ? -1 : Long.parseLong(position.substring(0, position.indexOf('/')));
  }

  /**
   * SIGKILL the replica that leads the rollout engine, and start its replacement at once, as
   * Kubernetes would: once the lease has lapsed, whichever replica asks first leads (the survivor,
   * or the replacement when it is up by then: both ask every quarter of a lease).
   */
  private void killTheLeader(Replicas replicas, NodeHistories histories, Progress progress)
      throws Exception {
    ControlPlaneProcess leader =
        await("a replica leads the rollout engine")
            .atMost(SETTLE_BOUND)
            .until(() -> replicas.leader(histories), Optional::isPresent)
            .orElseThrow();
    progress.requireRunning("the leader is killed");
    long[] before = progress.events();
    Instant killed = Instant.now();
    ControlPlaneProcess replacement = replicas.killAndReplace(leader);
    // The killed replica is no longer among those running: the lease it held names none of them.
    ControlPlaneProcess next =
        await("a running replica takes the engine's lease")
            .atMost(RECOVERY_BOUND)
            .until(() -> replicas.leader(histories), Optional::isPresent)
            .orElseThrow();
    Duration takeover = Duration.between(killed, Instant.now());
    Duration moving =
        Duration.between(killed, progress.awaitBeyond(before, 0, "after the leader was killed"));
    replacement.awaitReady(Replicas.READY_BOUND);
    Duration replaced = Duration.between(killed, Instant.now());
    awaitBothReady(replicas, "after the leader was killed");
    figures.add(
        "  SIGKILL of the leading replica: %s leads after %.1f s, the rollout moves after"
                .formatted(next == replacement ? "its replacement" : "the other", seconds(takeover))
            + " %.1f s, the replacement ready after %.1f s"
                .formatted(seconds(moving), seconds(replaced)));
  }

  /**
   * The broker stopped for a minute: readiness DOWN naming Kafka on both replicas, liveness UP,
   * reads answered from PostgreSQL, what needs the broker refused (503, problem+json, Retry-After:
   * a command, a pause), the pause asked again once it is back applied once. Then UP by itself.
   */
  private void stopTheBroker(
      BrokerProcess broker,
      Replicas replicas,
      NodeHistories histories,
      Progress progress,
      String probe)
      throws Exception {
    progress.requireRunning("the broker is stopped");
    ControlPlaneProcess leader =
        replicas.leader(histories).orElseThrow(() -> new AssertionError("no replica leads"));
    FaultApi leading = api(leader);
    Map<ControlPlaneProcess, Long> errorsBefore = new HashMap<>();
    for (ControlPlaneProcess replica : replicas.running()) {
      errorsBefore.put(replica, errors(replicas.log(replica)));
    }
    SseStream stream = SseStream.open(leading, "/api/v1/rollouts/" + progress.id + "/stream");
    long[] before = progress.events();
    broker.stopBroker();
    Instant stopped = Instant.now();
    try {
      for (ControlPlaneProcess replica : replicas.running()) {
        String reason =
            await("readiness of the replica on port %d to name Kafka".formatted(replica.port()))
                .atMost(NOTICE_BOUND)
                .until(() -> api(replica).downReason(KAFKA_CHECK), Optional::isPresent)
                .orElseThrow();
        assertThat(reason).startsWith("Kafka unreachable since ");
      }
      Duration noticed = Duration.between(stopped, Instant.now());
      assertUnavailable(
          leading.post("/api/v1/nodes/" + probe + "/actions/reset-gpu", "{\"gpu\": 0}"),
          "fact-not-recorded"); // its generation is a fact, recorded before the command is sent
      assertThat(leading.status("/api/v1/nodes/" + probe))
          .as("reads come from PostgreSQL")
          .isEqualTo(200);
      // An operator's request is a fact: refused while Kafka is away, and nothing is queued.
      assertUnavailable(
          leading.post("/api/v1/rollouts/" + progress.id + "/pause", ""), "fact-not-recorded");
      holdAlive(replicas, stopped, BROKER_OUTAGE);
      assertThat(leading.downReason(KAFKA_CHECK)).as("still DOWN at the end").isPresent();
      assertThat(stream.ended()).as("the SSE stream during the outage").isFalse();
      broker.restartBroker();
      Instant back = Instant.now();
      CompletableFuture<Instant> otherHeld =
          progress.awaitOtherBeyondMeanwhile(before, "after the broker came back");
      awaitBothReady(replicas, "after the broker came back");
      Duration ready = Duration.between(back, Instant.now());
      RolloutApi rollouts = new RolloutApi(leader.port(), leader.token("operator"));
      // Asked again once Kafka is back: answered, or queued if the engine is still taking over.
      HttpResponse<String> pause = leading.post("/api/v1/rollouts/" + progress.id + "/pause", "");
      assertThat(pause.statusCode()).as(pause.body()).isIn(200, 202);
      await("the pause asked for after the outage applied")
          .atMost(RECOVERY_BOUND)
          .until(() -> rollouts.get("/" + progress.id).path("state").asText().equals("paused"));
      HttpResponse<String> resume = leading.post("/api/v1/rollouts/" + progress.id + "/resume", "");
      assertThat(resume.statusCode()).as(resume.body()).isEqualTo(200);
      Progress.moved(otherHeld);
      Duration moving =
          Duration.between(
              back,
              progress.awaitBeyond(
                  before, 2, "after the broker came back (paused, resumed, moving)"));
      List<JsonNode> events = rollouts.events(progress.id);
      // From the outage to the resume asked after it (the test's own pauses between faults aside).
      List<String> sinceOutage = new ArrayList<>();
      for (JsonNode event : events) {
        if (event.path("seq").asLong() > before[0]) {
          sinceOutage.add(RolloutChecks.type(event));
          if (RolloutChecks.type(event).equals("resumed")) {
            break;
          }
        }
      }
      assertThat(sinceOutage)
          .as("the pause refused during the outage never appended: one pause, then the resume")
          .containsSubsequence("paused", "resumed")
          .filteredOn(type -> type.equals("paused"))
          .hasSize(1);
      await("the SSE stream opened before the outage carries the resume")
          .atMost(RECOVERY_BOUND)
          .until(stream::lines, l -> l.stream().anyMatch(x -> x.contains(".resumed.")));
      // The stream goes on as the rollout moves: read the log back as far as it went, at least.
      List<Long> ids = stream.ids();
      List<Long> logged =
          await("the rollout's events read back as far as the SSE stream went")
              .atMost(RECOVERY_BOUND)
              .until(
                  () ->
                      rollouts.events(progress.id).stream()
                          .map(e -> e.path("seq").asLong())
                          .toList(),
                  seqs -> seqs.size() >= ids.size());
      assertThat(ids)
          .as("SSE ids: every rollout event once, in order, across the outage")
          .isEqualTo(logged.subList(0, ids.size()));
      // What was asked during the outage (the refused pause and reset) has its audit entry held
      // and written once Kafka is back: a rebuild must find it on the topic.
      Path leaderLog = replicas.log(leader);
      await("every audit entry held during the outage written")
          .atMost(RECOVERY_BOUND)
          .until(
              () -> {
                long held = JsonConsole.count(leaderLog, AUDIT_HELD_LOG);
                return held > 0 && JsonConsole.count(leaderLog, AUDIT_WRITTEN_LOG) == held;
              });
      // At most once: the engine appends during the outage only if it decides something then
      // (the pause asked meanwhile is refused now, not queued for it).
      assertThat(JsonConsole.count(leaderLog, ENGINE_WAITING_LOG))
          .as("the engine's unacknowledged append said at most once (%s)", leaderLog)
          .isLessThanOrEqualTo(1);
      for (ControlPlaneProcess replica : replicas.running()) {
        Path log = replicas.log(replica);
        assertThat(JsonConsole.count(log, UNREACHABLE_LOG))
            .as("one line when Kafka is lost (%s)", log)
            .isEqualTo(1);
        assertThat(JsonConsole.count(log, REACHABLE_LOG))
            .as("one line when it is back (%s)", log)
            .isEqualTo(1);
        assertThat(errors(log))
            .as("no error logged for the broker's outage (%s)", log)
            .isEqualTo(errorsBefore.get(replica));
      }
      figures.add(
          "  broker stopped %.0f s: readiness DOWN naming Kafka after %.1f s; both replicas ready"
                  .formatted(seconds(Duration.between(stopped, back)), seconds(noticed))
              + " %.1f s after it was back, the rollout (paused after it, resumed) moving after %.1f s"
                  .formatted(seconds(ready), seconds(moving)));
    } finally {
      if (Duration.between(stopped, Instant.now()).compareTo(BROKER_OUTAGE) < 0) {
        broker.restartBroker(); // failed during the outage: the agents' close needs the broker
      }
    }
  }

  /**
   * PostgreSQL stopped for 65 s: readiness DOWN naming the projection's wait, liveness UP, reads of
   * PostgreSQL answering 503 problem+json while the summary and one node answer from memory. Then
   * the projection resumes and a replica leads again by itself.
   */
  private void stopPostgres(
      EmbeddedPostgres postgres,
      Replicas replicas,
      NodeHistories histories,
      Progress progress,
      String probe)
      throws Exception {
    progress.requireRunning("PostgreSQL is stopped");
    Map<ControlPlaneProcess, long[]> logged = new HashMap<>();
    for (ControlPlaneProcess replica : replicas.running()) {
      Path log = replicas.log(replica);
      logged.put(
          replica,
          new long[] {
            JsonConsole.count(log, WAITING_LOG),
            JsonConsole.count(log, RESUMED_LOG),
            errors(log),
            JsonConsole.count(log, KEYS_LOG)
          });
    }
    long[] before = progress.events();
    postgres.stop();
    Instant stopped = Instant.now();
    Duration noticed;
    try {
      for (ControlPlaneProcess replica : replicas.running()) {
        String reason =
            await(
                    "readiness of the replica on port %d to name the projection's wait"
                        .formatted(replica.port()))
                .atMost(NOTICE_BOUND)
                .until(() -> api(replica).downReason(PROJECTION_CHECK), Optional::isPresent)
                .orElseThrow();
        assertThat(reason).startsWith("projection waiting for PostgreSQL since ");
      }
      noticed = Duration.between(stopped, Instant.now());
      // The node's history is read from PostgreSQL: refused, and said so.
      HttpResponse<String> during = api(replicas.first()).get("/api/v1/nodes/" + probe + "/events");
      assertThat(during.statusCode()).as(during.body()).isEqualTo(503);
      assertThat(during.headers().firstValue("Content-Type"))
          .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
      assertThat(FaultApi.JSON.readTree(during.body()).path("status").asInt()).isEqualTo(503);
      // The fleet summary and one node are read from the replica's in-memory view of the log:
      // they answer on.
      HttpResponse<String> summary = api(replicas.first()).get("/api/v1/fleet/summary");
      assertThat(summary.statusCode()).as(summary.body()).isEqualTo(200);
      assertThat(FaultApi.JSON.readTree(summary.body()).path("totalNodes").asLong()).isPositive();
      HttpResponse<String> node = api(replicas.first()).get("/api/v1/nodes/" + probe);
      assertThat(node.statusCode()).as(node.body()).isEqualTo(200);
      assertThat(FaultApi.JSON.readTree(node.body()).path("name").asText()).isEqualTo(probe);
      holdAlive(replicas, stopped, POSTGRES_OUTAGE);
      for (ControlPlaneProcess replica : replicas.running()) {
        assertThat(api(replica).downReason(PROJECTION_CHECK))
            .as("the replica on port %d still waiting at the end", replica.port())
            .isPresent();
      }
    } finally {
      postgres.restart();
    }
    Instant back = Instant.now();
    CompletableFuture<Instant> holding =
        progress.awaitBeyondMeanwhile(before, 0, "after PostgreSQL came back");
    awaitBothReady(replicas, "after PostgreSQL came back");
    Duration ready = Duration.between(back, Instant.now());
    await("a replica leads the engine again")
        .atMost(RECOVERY_BOUND)
        .until(() -> replicas.leader(histories), Optional::isPresent);
    Duration leading = Duration.between(back, Instant.now());
    Duration moving = Duration.between(back, Progress.moved(holding));
    for (ControlPlaneProcess replica : replicas.running()) {
      Path log = replicas.log(replica);
      long[] earlier = logged.get(replica);
      assertThat(JsonConsole.count(log, WAITING_LOG) - earlier[0])
          .as("one log line when the projection's wait starts (%s)", log)
          .isEqualTo(1);
      assertThat(JsonConsole.count(log, RESUMED_LOG) - earlier[1])
          .as("one log line when it ends (%s)", log)
          .isEqualTo(1);
      assertThat(errors(log) - earlier[2])
          .as("no error logged for PostgreSQL's outage (%s)", log)
          .isZero();
      assertThat(JsonConsole.count(log, KEYS_LOG) - earlier[3])
          .as("the rollout engine's observer says once that it cannot check signatures (%s)", log)
          .isLessThanOrEqualTo(1);
    }
    figures.add(
        "  PostgreSQL stopped %.0f s: readiness DOWN naming the projection after %.1f s; both"
                .formatted(seconds(Duration.between(stopped, back)), seconds(noticed))
            + " replicas ready %.1f s after it was back, leading again after %.1f s, the rollout"
                .formatted(seconds(ready), seconds(leading))
            + " moving after %.1f s".formatted(seconds(moving)));
  }

  /** The database connection black-holed for 30 s: nothing refused, nothing answers. */
  private void blackHoleTheDatabase(BlackHoleProxy database, Replicas replicas, Progress progress)
      throws Exception {
    progress.requireRunning("the database connection is black-holed");
    long[] before = progress.events();
    database.blackHole();
    Instant started = Instant.now();
    try {
      holdAlive(replicas, started, BLACK_HOLE);
    } finally {
      database.heal();
    }
    Instant healed = Instant.now();
    CompletableFuture<Instant> holding =
        progress.awaitBeyondMeanwhile(before, 0, "after the black hole healed");
    awaitBothReady(replicas, "after the black hole healed");
    Duration ready = Duration.between(healed, Instant.now());
    Duration moving = Duration.between(healed, Progress.moved(holding));
    figures.add(
        "  database connection black-holed %.0f s: both replicas ready %.1f s after it healed,"
                .formatted(seconds(Duration.between(started, healed)), seconds(ready))
            + " the rollout moving after %.1f s".formatted(seconds(moving)));
  }

  /**
   * Every replica's console, the killed leader's included, is one JSON object a line through every
   * fault (as the Deployment writes it), and a line about a node or a rollout names them in its
   * MDC: the engine's decisions and spec sends (on its own thread), each rollout's completion, and
   * the audit line of each rollout and node action asked through the API (a request's Mutiny chain,
   * where the MDC lives in the Vert.x context).
   */
  private static void assertLinesAboutARolloutOrANodeSayWhich(Replicas replicas, String mig)
      throws IOException {
    List<Line> lines = new ArrayList<>();
    for (Path log : replicas.everyLog()) {
      lines.addAll(JsonConsole.read(log));
    }
    // Decision lines only ("rollout system-mig #12: NodeStarted sys-mig-h100-3 wave 1 ..."): a
    // takeover's "ignoring ..." lines name records, not the node a line is about.
    Pattern decision = Pattern.compile("^rollout \\S+ #\\d+: NodeStarted ");
    assertEachNamesWhatItIsAbout(
        lines,
        "the engine's NodeStarted decisions",
        line -> decision.matcher(line.message()).find(),
        line ->
            line.mdc(LogContext.ROLLOUT) != null
                && line.message().contains("NodeStarted " + line.mdc(LogContext.NODE) + " "));
    assertEachNamesWhatItIsAbout(
        lines,
        "the engine's spec sends",
        saying(": sending node "),
        line ->
            line.mdc(LogContext.ROLLOUT) != null
                && line.message().contains("sending node " + line.mdc(LogContext.NODE) + " its"));
    assertEachNamesWhatItIsAbout(
        lines,
        "the rollouts' completions",
        saying("RolloutCompleted"),
        line -> line.mdc(LogContext.ROLLOUT) != null && line.mdc(LogContext.NODE) == null);
    assertThat(lines)
        .filteredOn(saying("RolloutCompleted"))
        .as("the MIG rollout's completion")
        .anyMatch(line -> mig.equals(line.mdc(LogContext.ROLLOUT)));
    assertEachNamesWhatItIsAbout(
        lines,
        "the audit lines of the rollout actions (pause, resume)",
        line -> line.message().startsWith("POST /api/v1/rollouts/{id}/{action} "),
        line ->
            line.message().contains("/api/v1/rollouts/" + line.mdc(LogContext.ROLLOUT) + "/")
                && line.mdc(LogContext.NODE) == null);
    assertEachNamesWhatItIsAbout(
        lines,
        "the audit lines of the node actions (the GPU reset asked during the broker's outage)",
        line -> line.message().startsWith("POST /api/v1/nodes/{name}/"),
        line ->
            line.message().contains("/api/v1/nodes/" + line.mdc(LogContext.NODE) + "/")
                && line.mdc(LogContext.ROLLOUT) == null);
  }

  /** Some of {@code lines} are {@code what}, and each of them {@code names} what it is about. */
  private static void assertEachNamesWhatItIsAbout(
      List<Line> lines, String what, Predicate<Line> which, Predicate<Line> names) {
    List<Line> matching = lines.stream().filter(which).toList();
    assertThat(matching).as(what).isNotEmpty();
    assertThat(matching).as(what + ": the rollout and node in the MDC").allMatch(names);
  }

  /** The Kafka probe's line that starts with {@code text}, as the readiness check logs it. */
  private static Predicate<Line> kafkaProbe(String text) {
    return line ->
        line.logger().endsWith(".KafkaReachability")
            && line.thread().equals("kafka-probe")
            && line.message().startsWith(text);
  }

  /**
   * The ERROR lines of {@code log}. The Vert.x SQL client's pool fails a query a second time when
   * its connection timeout fires after the connection had failed (eclipse-vertx/vertx-sql-client
   * #1706); the control plane's log filter drops that line (logging/SqlPoolTimeoutEcho), so nothing
   * at all may log an error for an outage.
   */
  private static long errors(Path log) throws IOException {
    return JsonConsole.count(log, Line::error);
  }

  /** A 503 problem+json of type {@code problem}, with a Retry-After. */
  private static void assertUnavailable(HttpResponse<String> response, String problem)
      throws IOException {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
    assertThat(response.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    assertThat(response.headers().firstValue("Retry-After")).as("Retry-After").isPresent();
    JsonNode body = FaultApi.JSON.readTree(response.body());
    assertThat(body.path("type").asText()).endsWith("/" + problem);
    assertThat(body.path("status").asInt()).isEqualTo(503);
  }

  private static RolloutApi rollouts(Replicas replicas) {
    ControlPlaneProcess replica = replicas.first();
    return new RolloutApi(replica.port(), replica.token("operator"));
  }

  /** Until {@code length} has passed since {@code since}: liveness UP on every replica. */
  private static void holdAlive(Replicas replicas, Instant since, Duration length)
      throws IOException, InterruptedException {
    while (Duration.between(since, Instant.now()).compareTo(length) < 0) {
      for (ControlPlaneProcess replica : replicas.running()) {
        HttpResponse<String> live = api(replica).get("/q/health/live");
        assertThat(live.statusCode())
            .as(
                "liveness of the replica on port %d during the fault: %s",
                replica.port(), live.body())
            .isEqualTo(200);
      }
      long left = length.minus(Duration.between(since, Instant.now())).toMillis();
      Thread.sleep(Math.clamp(left, 0, 1000)); // the fault's length is the fault itself
    }
  }

  private static void awaitBothReady(Replicas replicas, String when) {
    for (ControlPlaneProcess replica : replicas.running()) {
      await("readiness UP on the replica on port %d %s".formatted(replica.port(), when))
          .atMost(RECOVERY_BOUND)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> api(replica).status("/q/health/ready") == 200);
    }
  }

  /** The newest warnings and errors of each running replica. */
  private static String newestWarnings(Replicas replicas) {
    StringBuilder newest = new StringBuilder();
    for (ControlPlaneProcess replica : replicas.running()) {
      Path log = replicas.log(replica);
      try {
        List<String> warned =
            JsonConsole.read(log).stream()
                .filter(l -> l.warning() || l.error())
                .map(Line::toString)
                .map(l -> l.length() > 240 ? l.substring(0, 240) : l)
                .toList();
        newest
            .append(" Newest warnings of ")
            .append(log.getFileName())
            .append(": ")
            .append(
                String.join(" | ", warned.subList(Math.max(0, warned.size() - 6), warned.size())));
      } catch (IOException | java.io.UncheckedIOException | AssertionError unreadable) {
        newest.append(" ").append(log.getFileName()).append(" unreadable: ").append(unreadable);
      }
    }
    return newest.toString();
  }

  private static FaultApi api(ControlPlaneProcess replica) {
    return new FaultApi(replica.port(), replica.managementPort(), replica.token("admin"));
  }

  private static boolean registered(NodeHistories histories, String node) {
    try {
      return histories.lastSeq(node) >= 0;
    } catch (java.sql.SQLException notYet) {
      return false;
    }
  }

  private static double seconds(Duration duration) {
    return duration.toMillis() / 1000.0;
  }

  private static void assertCompleted(RolloutApi rollouts, String id, int nodes, Path saved)
      throws IOException, InterruptedException {
    JsonNode finished = rollouts.awaitFinished(id, COMPLETION_BOUND);
    assertThat(finished.path("state").asText()).as("%s", finished).isEqualTo("completed");
    List<JsonNode> events = rollouts.events(id);
    Files.writeString(saved, events.toString());
    RolloutChecks.assertCompletedEachNodeOnce(
        events, RolloutChecks.plannedWaves(rollouts.get("/" + id)), nodes);
  }

  /**
   * The rollouts' events as the database holds them: whether they move, and that they still run.
   * {@link #id} is the one paused and resumed after the broker's outage.
   *
   * <p>The test pauses each rollout, as an operator would, as soon as it has moved after a fault,
   * and resumes it just before the next (see {@link #holdOnceBeyond}): held so, the rollouts move
   * only into and out of each fault, and what is left of them runs after the last one. With a fixed
   * apply time alone, how far they got between faults depended on the machine's load: on a loaded
   * one they finished before the last fault, which then proves nothing about rollouts.
   */
  private static final class Progress {
    private final NodeHistories histories;
    private final Replicas replicas;
    private final String id;
    private final String other;
    private final List<String> figures;
    // Paused by the test until the next fault (release()); written by the hold's thread too.
    private final Set<String> held = ConcurrentHashMap.newKeySet();

    Progress(
        NodeHistories histories, Replicas replicas, String id, String other, List<String> figures) {
      this.histories = histories;
      this.replicas = replicas;
      this.id = id;
      this.other = other;
      this.figures = figures;
    }

    /** Each rollout's events so far, in the order of {@link #ids()}. */
    long[] events() throws java.sql.SQLException {
      long[] counts = new long[2];
      for (int i = 0; i < 2; i++) {
        counts[i] = events(ids().get(i));
      }
      return counts;
    }

    private long events(String rollout) throws java.sql.SQLException {
      return histories.count(
          "SELECT count(*) FROM rollout_event_log WHERE rollout = '" + rollout + "'");
    }

    List<String> ids() {
      return List.of(id, other);
    }

    /** A fault that strikes a rollout that has finished proves nothing about rollouts. */
    void requireRunning(String when) {
      for (String rollout : ids()) {
        assertThat(histories.text("SELECT state FROM rollouts WHERE id = '" + rollout + "'"))
            .as("rollout %s still running when %s (lengthen APPLY)", rollout, when)
            .hasValueSatisfying(state -> assertThat(state).isIn("created", "running"));
      }
    }

    /**
     * Until every rollout has appended more than {@code seen} (plus {@code more} for the first),
     * each paused until the next fault as soon as it has; returns when the last one had moved.
     */
    Instant awaitBeyond(long[] seen, int more, String when) {
      return holdOnceBeyond(Map.of(id, seen[0] + more, other, seen[1]), when);
    }

    /**
     * {@link #awaitBeyond} on a thread of its own, from now on: what the test checks meanwhile
     * (readiness, a leader) takes seconds on a loaded machine, in which the rollouts would run.
     */
    CompletableFuture<Instant> awaitBeyondMeanwhile(long[] seen, int more, String when) {
      return CompletableFuture.supplyAsync(() -> awaitBeyond(seen, more, when));
    }

    /** {@link #awaitBeyond} for the second rollout alone, on a thread of its own. */
    CompletableFuture<Instant> awaitOtherBeyondMeanwhile(long[] seen, String when) {
      return CompletableFuture.supplyAsync(() -> holdOnceBeyond(Map.of(other, seen[1]), when));
    }

    /** When a hold begun by a {@code ...Meanwhile} method ended, or why it failed. */
    static Instant moved(CompletableFuture<Instant> hold) {
      try {
        return hold.join();
      } catch (java.util.concurrent.CompletionException failed) {
        if (failed.getCause() instanceof AssertionError assertion) {
          throw assertion;
        }
        throw failed;
      }
    }

    /**
     * Pauses each rollout of {@code beyond} not held yet as soon as it has appended more events
     * than the number given for it.
     */
    private Instant holdOnceBeyond(Map<String, Long> beyond, String when) {
      Set<String> waiting = new java.util.TreeSet<>(beyond.keySet());
      waiting.removeAll(held);
      try {
        await("each rollout pausing once it appended an event %s".formatted(when))
            .atMost(RECOVERY_BOUND)
            .pollInterval(Duration.ofMillis(200))
            // The database and a replica may be a fault's; a refused pause is not.
            .ignoreExceptionsMatching(thrown -> !(thrown instanceof AssertionError))
            .until(
                () -> {
                  for (var rollouts = waiting.iterator(); rollouts.hasNext(); ) {
                    String rollout = rollouts.next();
                    if (events(rollout) > beyond.get(rollout) && pause(rollout)) {
                      held.add(rollout);
                      rollouts.remove();
                    }
                  }
                  return waiting.isEmpty();
                });
      } catch (org.awaitility.core.ConditionTimeoutException stalled) {
        // CI keeps only the output's tail: the message carries what a stall needs to be read.
        throw new AssertionError(
            "%s; events beyond which each pauses: %s; %s%s"
                .formatted(stalled.getMessage(), beyond, this, newestWarnings(replicas)),
            stalled);
      }
      Instant moved = Instant.now();
      for (String rollout : beyond.keySet()) {
        awaitState(rollout, "paused");
      }
      figures.add("    rollouts paused once they moved %s: %s".formatted(when, finished()));
      return moved;
    }

    /**
     * Asks the leading replica to pause {@code rollout}: false while no replica leads or the one
     * leading cannot record it yet (503, Kafka or PostgreSQL just back).
     */
    private boolean pause(String rollout) throws IOException, InterruptedException {
      Optional<ControlPlaneProcess> leader = replicas.leader(histories);
      if (leader.isEmpty()) {
        return false;
      }
      HttpResponse<String> answer = api(leader.get()).post(pathOf(rollout, "pause"), "");
      if (answer.statusCode() == 503) {
        return false;
      }
      assertThat(answer.statusCode())
          .as("pause of rollout %s: %s (%s)", rollout, answer.body(), this)
          .isIn(200, 202);
      return true;
    }

    /** Resumes the rollouts held since the last fault (none before the first). */
    void release() {
      if (held.isEmpty()) {
        return;
      }
      ControlPlaneProcess leader =
          await("a replica leads the rollout engine (to resume the rollouts)")
              .atMost(RECOVERY_BOUND)
              .until(() -> replicas.leader(histories), Optional::isPresent)
              .orElseThrow();
      for (String rollout : new java.util.TreeSet<>(held)) {
        try {
          HttpResponse<String> answer = api(leader).post(pathOf(rollout, "resume"), "");
          assertThat(answer.statusCode())
              .as("resume of rollout %s: %s (%s)", rollout, answer.body(), this)
              .isIn(200, 202);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError(e);
        }
        awaitState(rollout, "running");
        held.remove(rollout);
      }
    }

    private static String pathOf(String rollout, String action) {
      return "/api/v1/rollouts/" + rollout + "/" + action;
    }

    private void awaitState(String rollout, String state) {
      await("rollout %s %s".formatted(rollout, state))
          .atMost(RECOVERY_BOUND)
          .until(
              () -> histories.text("SELECT state FROM rollouts WHERE id = '" + rollout + "'"),
              found -> found.filter(state::equals).isPresent());
    }

    /** How many nodes each rollout has finished, of how many. */
    private String finished() {
      return "MIG %s of %d nodes done, driver %s of %d"
          .formatted(
              nodesDone(id).orElse("?"), MIG_NODES, nodesDone(other).orElse("?"), DRIVER_NODES);
    }

    private Optional<String> nodesDone(String rollout) {
      return histories.text(
          "SELECT count(*) FROM rollout_event_log WHERE rollout = '"
              + rollout
              + "' AND event_type LIKE '%node-succeeded%'");
    }

    /** Each rollout's state, newest events and unfinished nodes, as the database holds them. */
    @Override
    public String toString() {
      StringBuilder described = new StringBuilder();
      for (String rollout : ids()) {
        String events = "rollout_event_log WHERE rollout = '" + rollout + "'";
        String finished = "event_type ~ 'node-(succeeded|failed|skipped|rolled-back)'";
        described
            .append("rollout ")
            .append(rollout)
            .append(": ")
            .append(
                histories
                    .text(
                        "SELECT state || ', ' || (SELECT count(*) FROM "
                            + events
                            + ") || ' events, newest: ' || (SELECT string_agg("
                            + "regexp_replace(event_type, '^io.fleetwave.rollout.|.v[0-9]+$', '',"
                            + " 'g') || coalesce(' ' || (data->>'node'), '') || ' at '"
                            + " || to_char(event_time, 'HH24:MI:SS.MS'), '; ' ORDER BY seq DESC)"
                            + " FROM (SELECT * FROM "
                            + events
                            + " ORDER BY seq DESC LIMIT 6) newest)"
                            + " FROM rollouts WHERE id = '"
                            + rollout
                            + "'")
                    .orElse("unreadable"))
            .append("; started, unfinished: ")
            .append(
                histories
                    .text(
                        // What each says of itself: a stall is read from its gate's reason.
                        "SELECT string_agg(name || ' (last seen '"
                            + " || coalesce(to_char(last_seen, 'HH24:MI:SS.MS'), 'never')"
                            + " || ', driver ' || coalesce(driver_version, 'none')"
                            + " || ', generation desired ' || coalesce((SELECT generation FROM"
                            + " desired_specs WHERE desired_specs.node = nodes.name), 0)"
                            + " || ', accepted ' || coalesce(accepted_generation, 0)"
                            + " || ', applied ' || coalesce(applied_generation, 0)"
                            + " || coalesce(', gate ' || gate || coalesce(': ' || gate_reason, ''),"
                            + " '') || ')', ', ') FROM nodes LEFT JOIN node_reconcile"
                            + " ON node_reconcile.node = nodes.name"
                            + " WHERE name IN (SELECT data->>'node' FROM "
                            + events
                            + " AND event_type LIKE '%node-started%' EXCEPT SELECT data->>'node'"
                            + " FROM "
                            + events
                            + " AND "
                            + finished
                            + ")")
                    .orElse("none"))
            .append(". ");
      }
      return described.toString();
    }
  }

  private static Map<String, String> environment(
      BrokerProcess broker,
      BlackHoleProxy database,
      CommandSigner signer,
      int webhookPort,
      String webhookSecret) {
    return Map.of(
        "FLEETWAVE_ROLLOUT_DRIVER_EXECUTOR",
        "webhook",
        "FLEETWAVE_ROLLOUT_DRIVER_WEBHOOK_URL",
        "http://localhost:" + webhookPort + "/",
        "FLEETWAVE_ROLLOUT_DRIVER_WEBHOOK_SECRET",
        webhookSecret,
        "KAFKA_BOOTSTRAP_SERVERS",
        broker.bootstrapServers(),
        "QUARKUS_DATASOURCE_REACTIVE_URL",
        "postgresql://localhost:%d/%s".formatted(database.port(), EmbeddedPostgres.DATABASE),
        "QUARKUS_DATASOURCE_JDBC_URL",
        "jdbc:postgresql://localhost:%d/%s".formatted(database.port(), EmbeddedPostgres.DATABASE),
        "QUARKUS_DATASOURCE_USERNAME",
        EmbeddedPostgres.USER,
        "QUARKUS_DATASOURCE_PASSWORD",
        EmbeddedPostgres.PASSWORD,
        "FLEETWAVE_COMMANDS_PRIVATE_KEY",
        signer.privateKeyPem(),
        // As the Deployment has it (deploy/control-plane/deployment.yaml): one JSON object a line.
        "QUARKUS_LOG_CONSOLE_JSON_ENABLED",
        "true");
  }

  private static String fleetYaml() {
    return """
        nodes:
          - name-prefix: sys-mig-h100
            count: %d
            host: ubuntu
            labels: {pool: mig}
            driver-version: "580.95.05"
            gpus:
              - model: "0x233010DE"
                count: 1
          - name-prefix: sys-drv-h100
            count: %d
            host: ubuntu
            labels: {pool: driver}
            driver-version: "570.172.08"
            gpus:
              - model: "0x233010DE"
                count: 1
        """
        .formatted(MIG_NODES, DRIVER_NODES);
  }

  /** A Standard Webhooks secret: whsec_ and 32 random bytes in base64. */
  private static String webhookSecret() {
    byte[] secret = new byte[32];
    new java.security.SecureRandom().nextBytes(secret);
    return "whsec_" + java.util.Base64.getEncoder().encodeToString(secret);
  }
}
