package io.fleetwave.controlplane.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.agent.desired.SpecFollowing;
import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.HeartbeatingFleet;
import io.fleetwave.controlplane.fixtures.RolloutApi;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.simulator.FleetEnrolment;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.fleet.FleetFile;
import io.fleetwave.testsupport.services.PostgresExtension;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 11's broker fault: the packaged control plane runs as a child process against an embedded
 * Kafka and PostgreSQL of this JVM while 40 nodes heartbeat and a MIG rollout over 12 simulated
 * agents is in its second wave; the broker is stopped for {@code -Dfault.outageSeconds} (default
 * 60) and started again on the same port and data. Meanwhile readiness is DOWN naming Kafka,
 * liveness stays UP, the API answers reads from PostgreSQL and refuses what needs the broker with
 * 503 problem+json and Retry-After. Afterwards, with nothing restarted: readiness is UP by itself,
 * every event the agents' producers acknowledged is projected with no per-node seq gap, the rollout
 * completes with every node started once and none skipped, the rollout's SSE stream carried it to
 * its end, and the API publishes again. Prints the figures.
 *
 * <p>The agents here wait for the broker longer than the outage (their producers' max.block.ms and
 * delivery.timeout.ms are the outage plus 2 minutes): the agents' own defaults (10 s, 30 s) drop
 * events of a longer outage until their durable spool lands, and what an agent drops is not the
 * control plane's to recover.
 */
// Its own broker and PostgreSQL (never shared): the test stops and restarts the broker.
@ExtendWith(PostgresExtension.class)
class BrokerOutageIT {
  private static final Path APP = Path.of("target", "quarkus-app");
  private static final Duration OUTAGE =
      Duration.ofSeconds(Long.getLong("fault.outageSeconds", 60));
  private static final int HEARTBEATING = 40;
  private static final int ROLLED = 12;
  private static final Duration HEARTBEAT = Duration.ofMillis(500);
  // How long the agents here wait for the broker before they would drop an event.
  private static final Duration RIDE_OUT = OUTAGE.plusMinutes(2);
  private static final Duration SETTLE_BOUND = Duration.ofSeconds(120);
  private static final Duration NOTICE_BOUND = Duration.ofSeconds(30);
  private static final Duration RECOVERY_BOUND = Duration.ofSeconds(90);
  private static final Duration COMPLETION_BOUND = Duration.ofSeconds(180);
  static final String KAFKA_CHECK = "fleetwave-kafka";
  // Its own lines: the readiness reports Quarkus logs on each DOWN probe repeat the reason.
  private static final String UNREACHABLE_LOG =
      "KafkaReachability] (kafka-probe) Kafka unreachable";
  private static final String REACHABLE_LOG = "KafkaReachability] (kafka-probe) Kafka reachable";
  private static final String ENGINE_WAITING_LOG = "rollout engine waiting for Kafka";
  private static final String AUDIT_HELD_LOG = "not written yet, trying again";
  private static final String AUDIT_WRITTEN_LOG = "written on a later attempt";

  /**
   * Waves of 2 and 10 nodes, two at a time, every node a second to converge; no failure allowed.
   */
  private static final String ROLLOUT =
      """
      {"name": "broker-outage", "target": {"selector": "pool=broker"},
       "change": {"migConfig": "all-1g.10gb"},
       "strategy": {"waves": ["2", "100%"], "maxUnavailable": "2", "soakSeconds": 0,
                    "failureThreshold": {"perWave": "0", "total": "0", "action": "pause"},
                    "manualPromotion": false, "nodeTimeoutSeconds": 300}}
      """;

  @Test
  @SuppressWarnings("try") // the agents are closed before the rebuild, and again (a no-op) after
  void theControlPlaneRidesOutABrokerOutageAndResumesByItselfLosingNothing(
      EmbeddedPostgres postgres) throws Exception {
    Path work = Files.createDirectories(Path.of("target", "broker-outage-it").toAbsolutePath());
    Path log = work.resolve("control-plane.log");
    CommandSigner signer = CommandSigner.generate();
    NodeHistories histories = new NodeHistories(postgres);
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      FleetTopics.create(kafka);
      try (ControlPlaneProcess controlPlane =
              ControlPlaneProcess.start(
                  APP, freePort(), environment(kafka, postgres, signer), log);
          HeartbeatingFleet heartbeats =
              HeartbeatingFleet.ridingOut(
                  kafka.bootstrapServers(),
                  "hb",
                  HEARTBEATING,
                  HEARTBEAT,
                  controlPlane::enroll,
                  RIDE_OUT);
          SimulatedFleet agents =
              SimulatedFleet.start(
                  FleetFile.parse(fleetYaml(), "broker-outage-fleet.yaml"),
                  new SimulatedFleet.Settings(
                          kafka.bootstrapServers(),
                          Duration.ofSeconds(2),
                          io.fleetwave.events.Topics.NODE_EVENTS,
                          2,
                          Duration.ofSeconds(30),
                          RIDE_OUT)
                      .withDeliveryTimeout(RIDE_OUT),
                  SpecFollowing.of(signer.verifier()).withApplyDelay(Duration.ofSeconds(1)),
                  null,
                  FleetEnrolment.of(controlPlane.url(), controlPlane.joinTokens()));
          // Closed first: the agents' close needs the broker back if the test failed without it.
          Outage broker = new Outage(kafka)) {
        FaultApi api =
            new FaultApi(
                controlPlane.port, controlPlane.managementPort, controlPlane.token("admin"));
        RolloutApi rollouts = new RolloutApi(controlPlane.port, controlPlane.token("operator"));
        String probe = heartbeats.nodes().getFirst();
        await("the fleet projected before the outage")
            .atMost(SETTLE_BOUND)
            .until(
                () ->
                    histories.lastSeq(probe) >= 5
                        && histories.count(
                                "SELECT count(DISTINCT node) FROM gpus WHERE node LIKE 'bo-%'")
                            == ROLLED);
        assertThat(api.post(resetGpu(probe), "{\"gpu\": 0}").statusCode())
            .as("a command before the outage")
            .isEqualTo(202);

        String id = rollouts.create(ROLLOUT).get("id").asText();
        SseStream stream = SseStream.open(api, "/api/v1/rollouts/" + id + "/stream");
        Set<String> inFlight =
            await("wave 2 of the rollout has a node in flight")
                .atMost(SETTLE_BOUND)
                .pollInterval(Duration.ofMillis(100))
                .until(
                    () -> RolloutChecks.inFlightInWave(rollouts.events(id), 2), Optional::isPresent)
                .orElseThrow();

        broker.stop();
        Instant stopped = Instant.now();

        String reason =
            await("readiness to name Kafka")
                .atMost(NOTICE_BOUND)
                .until(() -> api.downReason(KAFKA_CHECK), Optional::isPresent)
                .orElseThrow();
        Duration noticed = Duration.between(stopped, Instant.now());
        assertThat(reason).startsWith("Kafka unreachable since ");
        Instant asked = Instant.now();
        HttpResponse<String> command = api.post(resetGpu(probe), "{\"gpu\": 0}");
        Duration refusedAfter = Duration.between(asked, Instant.now());
        // Its generation is a fact on fleet.control-facts, recorded before the command is sent.
        assertUnavailable(command, "fact-not-recorded");
        assertThat(api.status("/api/v1/nodes/" + probe))
            .as("reads come from PostgreSQL")
            .isEqualTo(200);
        // The engine cannot append the pause now: it is queued, and appended once Kafka is back.
        HttpResponse<String> pause = api.post("/api/v1/rollouts/" + id + "/pause", "");
        assertThat(pause.statusCode()).as(pause.body()).isEqualTo(202);
        List<String> samples = new ArrayList<>();
        while (Duration.between(stopped, Instant.now()).compareTo(OUTAGE) < 0) {
          HttpResponse<String> live = api.get("/q/health/live");
          assertThat(live.statusCode())
              .as("liveness during the outage: %s", live.body())
              .isEqualTo(200);
          samples.add(FaultApi.JSON.readTree(api.get("/q/health/ready").body()).toString());
          long left = OUTAGE.minus(Duration.between(stopped, Instant.now())).toMillis();
          Thread.sleep(Math.clamp(left, 0, 1000)); // the outage's length is the fault itself
        }
        Files.write(work.resolve("readiness-during-outage.jsonl"), samples);
        assertThat(api.downReason(KAFKA_CHECK)).as("still DOWN at the end").isPresent();
        assertThat(stream.ended()).as("the SSE stream during the outage").isFalse();

        broker.restart();
        Instant back = Instant.now();
        Duration outage = Duration.between(stopped, back);
        await("readiness UP by itself")
            .atMost(RECOVERY_BOUND)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> api.status("/q/health/ready") == 200);
        Duration ready = Duration.between(back, Instant.now());
        await("a command accepted again")
            .atMost(RECOVERY_BOUND)
            .until(() -> api.post(resetGpu(probe), "{\"gpu\": 0}").statusCode() == 202);
        Duration publishing = Duration.between(back, Instant.now());

        await("the pause asked for during the outage applied")
            .atMost(COMPLETION_BOUND)
            .until(() -> rollouts.get("/" + id).path("state").asText().equals("paused"));
        Duration paused = Duration.between(back, Instant.now());
        HttpResponse<String> resume = api.post("/api/v1/rollouts/" + id + "/resume", "");
        assertThat(resume.statusCode()).as(resume.body()).isEqualTo(200);
        JsonNode finished = rollouts.awaitFinished(id, COMPLETION_BOUND);
        Duration completed = Duration.between(back, Instant.now());
        assertThat(finished.path("state").asText()).as("%s", finished).isEqualTo("completed");
        List<JsonNode> events = rollouts.events(id);
        Files.writeString(work.resolve("rollout-events.json"), events.toString());
        RolloutChecks.assertCompletedEachNodeOnce(
            events, RolloutChecks.plannedWaves(rollouts.get("/" + id)), ROLLED);
        assertThat(events.stream().map(RolloutChecks::type))
            .as("the pause of the outage appended once, then the resume")
            .containsSubsequence("paused", "resumed")
            .filteredOn(type -> type.equals("paused"))
            .hasSize(1);

        heartbeats.stop();
        Map<String, Long> published = heartbeats.published();
        await("every acknowledged heartbeat projected")
            .atMost(SETTLE_BOUND)
            .until(() -> histories.counts("hb-").equals(published));
        Duration caughtUp = Duration.between(back, Instant.now());
        assertThat(histories.seqGaps("hb-")).as("seq gaps of the heartbeating nodes").isEmpty();
        agents.close(); // the rebuild compares with a projection that no longer moves
        long agentsAcknowledged = agents.publisher().acknowledged();
        assertThat(agents.publisher().failed()).as("agent events that failed delivery").isZero();
        NodeHistories.OnTopic onTopic = NodeHistories.onTopic(kafka.bootstrapServers(), "bo-");
        assertThat(onTopic.events())
            .as("distinct events of the simulated agents on the topic")
            .isEqualTo(agentsAcknowledged);
        await("every agent event on the topic projected")
            .atMost(SETTLE_BOUND)
            .until(() -> histories.positions("bo-").equals(onTopic.newest()));
        assertThat(histories.seqGaps("bo-")).as("seq gaps of the simulated agents").isEmpty();

        List<String> lines =
            await("the SSE stream carried the rollout to its end")
                .atMost(RECOVERY_BOUND)
                .until(stream::lines, l -> l.stream().anyMatch(x -> x.contains(".completed.")));
        assertThat(stream.ids())
            .as("SSE ids: every rollout event once, in order")
            .isEqualTo(events.stream().map(e -> e.path("seq").asLong()).toList());

        // The changes made during the outage (the pause, the refused GPU reset) have their audit
        // entries held and written once Kafka is back; the rebuild must find them on the topic.
        await("every audit entry held during the outage written")
            .atMost(RECOVERY_BOUND)
            .until(
                () -> {
                  List<String> logged = Files.readAllLines(log);
                  long held = logged.stream().filter(l -> l.contains(AUDIT_HELD_LOG)).count();
                  long written = logged.stream().filter(l -> l.contains(AUDIT_WRITTEN_LOG)).count();
                  return held > 0 && written == held;
                });
        JsonNode rebuild = api.rebuild();
        assertThat(rebuild.path("equal").asBoolean()).as("rebuild: %s", rebuild).isTrue();
        String output = Files.readString(log);
        assertThat(output.lines().filter(l -> l.contains(UNREACHABLE_LOG)))
            .as("one log line when Kafka is lost (%s)", log)
            .hasSize(1);
        assertThat(output.lines().filter(l -> l.contains(REACHABLE_LOG)))
            .as("one log line when it is back (%s)", log)
            .hasSize(1);
        assertThat(output.lines().filter(l -> l.contains(ENGINE_WAITING_LOG)))
            .as("the engine's unacknowledged append said once (%s)", log)
            .hasSize(1);
        assertThat(output.lines().filter(l -> l.contains(" ERROR ")))
            .as("no error logged (%s)", log)
            .isEmpty();

        System.out.printf(
            "Broker outage: %.1f s while %d nodes heartbeat every %d ms and a rollout of %d nodes"
                + " is in wave 2 (%d in flight)%n"
                + "  readiness DOWN naming Kafka after   %.1f s%n"
                + "  a command refused (503) after       %.1f s%n"
                + "  readiness UP after the broker is back:        %.1f s%n"
                + "  the pause of the outage appended after:       %.1f s%n"
                + "  a command accepted again after:               %.1f s%n"
                + "  every acknowledged heartbeat projected after: %.1f s%n"
                + "  rollout completed after:                      %.1f s%n"
                + "  events acknowledged: %d heartbeating + %d agents, seq gaps: 0,"
                + " rebuild equal: %s, SSE lines: %d%n",
            outage.toMillis() / 1000.0,
            HEARTBEATING,
            HEARTBEAT.toMillis(),
            ROLLED,
            inFlight.size(),
            noticed.toMillis() / 1000.0,
            refusedAfter.toMillis() / 1000.0,
            ready.toMillis() / 1000.0,
            paused.toMillis() / 1000.0,
            publishing.toMillis() / 1000.0,
            caughtUp.toMillis() / 1000.0,
            completed.toMillis() / 1000.0,
            heartbeats.total(),
            agentsAcknowledged,
            rebuild.path("equal").asBoolean(),
            lines.size());
      }
    }
  }

  static void assertUnavailable(HttpResponse<String> response, String problem) throws IOException {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
    assertThat(response.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    assertThat(response.headers().firstValue("Retry-After")).as("Retry-After").isPresent();
    JsonNode body = FaultApi.JSON.readTree(response.body());
    assertThat(body.path("type").asText()).endsWith("/" + problem);
    assertThat(body.path("status").asInt()).isEqualTo(503);
  }

  private static String resetGpu(String node) {
    return "/api/v1/nodes/" + node + "/actions/reset-gpu";
  }

  private static String fleetYaml() {
    return """
        nodes:
          - name-prefix: bo-h100
            count: %d
            host: ubuntu
            labels: {pool: broker}
            driver-version: "580.95.05"
            gpus:
              - model: "0x233010DE"
                count: 1
        """
        .formatted(ROLLED);
  }

  static Map<String, String> environment(
      EmbeddedKafka kafka, EmbeddedPostgres postgres, CommandSigner signer) {
    return Map.of(
        "KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers(),
        "QUARKUS_DATASOURCE_REACTIVE_URL", postgres.reactiveUrl(),
        "QUARKUS_DATASOURCE_JDBC_URL", postgres.jdbcUrl(),
        "QUARKUS_DATASOURCE_USERNAME", EmbeddedPostgres.USER,
        "QUARKUS_DATASOURCE_PASSWORD", EmbeddedPostgres.PASSWORD,
        "FLEETWAVE_COMMANDS_PRIVATE_KEY", signer.privateKeyPem(),
        "FLEETWAVE_NODE_IDENTITY_ENROLMENTS_PER_SOURCE", ONE_ADDRESS_FLEET);
  }

  /**
   * The per-source enrolment bound of a fleet that enrolls from one address, as nodes behind one
   * NAT do and as this test's agents do: its operator raises the bound (docs/security.md). At the
   * default, 20 a minute, the fleets here waited a minute for their last nodes.
   */
  static final String ONE_ADDRESS_FLEET = "1000";

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** Stops and restarts the broker; closing restarts it if it is still stopped. */
  static final class Outage implements AutoCloseable {
    private final EmbeddedKafka kafka;
    private boolean stopped;

    Outage(EmbeddedKafka kafka) {
      this.kafka = kafka;
    }

    void stop() {
      kafka.stopBroker();
      stopped = true;
    }

    void restart() {
      kafka.restartBroker();
      stopped = false;
    }

    @Override
    public void close() {
      if (stopped) {
        restart();
      }
    }
  }

  /** A server-sent-events stream read line by line on the HTTP client's threads. */
  record SseStream(List<String> lines, CompletableFuture<?> done) {
    static SseStream open(FaultApi api, String path) {
      List<String> lines = new CopyOnWriteArrayList<>();
      CompletableFuture<?> done =
          FaultApi.http()
              .sendAsync(
                  api.request(path).header("Accept", "text/event-stream").build(),
                  java.net.http.HttpResponse.BodyHandlers.fromLineSubscriber(
                      new java.util.concurrent.Flow.Subscriber<String>() {
                        @Override
                        public void onSubscribe(java.util.concurrent.Flow.Subscription s) {
                          s.request(Long.MAX_VALUE);
                        }

                        @Override
                        public void onNext(String line) {
                          lines.add(line);
                        }

                        @Override
                        public void onError(Throwable error) {
                          lines.add("error: " + error);
                        }

                        @Override
                        public void onComplete() {}
                      }));
      return new SseStream(lines, done);
    }

    boolean ended() {
      return done.isDone();
    }

    /** The SSE ids received, in order. */
    List<Long> ids() {
      return lines.stream()
          .filter(l -> l.startsWith("id:"))
          .map(l -> Long.parseLong(l.substring(3).trim()))
          .toList();
    }
  }
}
