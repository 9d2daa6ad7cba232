package io.fleetwave.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.RolloutApi;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.events.security.CommandSigner;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 5's crash test with a real crash: the packaged control plane runs as a child process (demo
 * mode: its simulated agents live in it) against an embedded Kafka and PostgreSQL of this JVM. It
 * is killed with SIGKILL while a wave of a MIG rollout has nodes in flight; a new process against
 * the same Kafka and PostgreSQL must take the engine over, fold the rollout from its events and
 * finish it. The events prove it: every planned node started exactly once, in its planned wave, and
 * the rollout completed with every node succeeded.
 *
 * <p>Not a {@code @QuarkusTest}: nothing of Quarkus runs in this JVM, so nothing survives the kill.
 */
class ControlPlaneCrashIT {
  private static final int NODES = 16;
  private static final Path APP = Path.of("target", "quarkus-app");
  private static final Pattern TAKE_OVER =
      Pattern.compile("rollout engine leads in term \\d+: 1 rollout\\(s\\) folded");
  private static final Duration PROJECTED_BOUND = Duration.ofSeconds(60);
  private static final Duration MID_WAVE_BOUND = Duration.ofSeconds(60);
  private static final Duration COMPLETION_BOUND = Duration.ofSeconds(120);

  @Test
  void aKilledControlPlaneIsSucceededByAProcessThatNeitherRedoesNorSkipsANode() throws Exception {
    Path work = Files.createDirectories(Path.of("target", "crash-it").toAbsolutePath());
    Path fleet = work.resolve("crash-fleet.yaml");
    Files.writeString(fleet, fleetYaml());
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        EmbeddedPostgres postgres = EmbeddedPostgres.start()) {
      FleetTopics.create(kafka);
      Map<String, String> env = environment(kafka, postgres, fleet);

      String id;
      Snapshot atKill;
      try (ControlPlaneProcess first =
          ControlPlaneProcess.start(APP, freePort(), env, work.resolve("first.log"))) {
        awaitProjected(postgres);
        RolloutApi api = new RolloutApi(first.port, first.token("operator"));
        JsonNode created = api.create(ROLLOUT);
        id = created.get("id").asText();
        assertThat(created.at("/plan/plannedNodes").asInt())
            .as("every node of pool=crash is planned")
            .isEqualTo(NODES);
        atKill = awaitWaveTwoInFlight(api, id);
        first.kill();
        assertThat(first.alive()).as("the first control plane is dead").isFalse();
      }
      assertThat(atKill.pending())
          .as("nodes not yet started when the control plane died (the successor must start them)")
          .isNotEmpty();

      Path secondLog = work.resolve("second.log");
      try (ControlPlaneProcess second =
          ControlPlaneProcess.start(APP, freePort(), env, secondLog)) {
        await("the new control plane's engine folds the rollout from the log (" + secondLog + ")")
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> TAKE_OVER.matcher(Files.readString(secondLog)).find());
        RolloutApi api = new RolloutApi(second.port, second.token("operator"));
        JsonNode last = api.awaitFinished(id, COMPLETION_BOUND);
        assertThat(last.path("state").asText())
            .as("rollout state after the crash; last view: %s", last)
            .isEqualTo("completed");

        List<JsonNode> events = api.events(id);
        Files.writeString(work.resolve("events.json"), events.toString()); // for a failure's reader
        List<List<String>> waves = createdWaves(events);
        assertEveryPlannedNodeStartedOnceInItsWave(events, waves);
        assertThat(succeededNodes(events))
            .as("the nodes in flight at the kill succeeded after it")
            .containsAll(atKill.inFlight());
        JsonNode completed = last(events, "completed");
        assertThat(completed.at("/data/rolledBack").asBoolean()).isFalse();
        assertThat(completed.at("/data/succeeded").asInt())
            .as("succeeded nodes of %s", completed)
            .isEqualTo(NODES);
        assertThat(completed.at("/data/failed").asInt()).isZero();
      }
    }
  }

  private static Map<String, String> environment(
      EmbeddedKafka kafka, EmbeddedPostgres postgres, Path fleet) {
    // One signing key for both processes: the successor's agents must accept the specs already on
    // fleet.node-desired, as real agents with their configured public key would.
    String key = CommandSigner.generate().privateKeyPem();
    return Map.ofEntries(
        Map.entry("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers()),
        Map.entry("QUARKUS_DATASOURCE_REACTIVE_URL", postgres.reactiveUrl()),
        Map.entry("QUARKUS_DATASOURCE_JDBC_URL", postgres.jdbcUrl()),
        Map.entry("QUARKUS_DATASOURCE_USERNAME", EmbeddedPostgres.USER),
        Map.entry("QUARKUS_DATASOURCE_PASSWORD", EmbeddedPostgres.PASSWORD),
        Map.entry("FLEETWAVE_COMMANDS_PRIVATE_KEY", key),
        Map.entry("FLEETWAVE_DEMO_ENABLED", "true"),
        Map.entry("FLEETWAVE_DEMO_FLEET", fleet.toString()),
        Map.entry("FLEETWAVE_DEMO_HEARTBEAT_INTERVAL", "2s"),
        // Each node takes a second to start converging: a wave is in flight long enough to die in.
        Map.entry("FLEETWAVE_DEMO_APPLY_DELAY", "1s"));
  }

  /** Waves 1, 7, 8 nodes; three at a time; any failure pauses (and fails the test). */
  private static final String ROLLOUT =
      """
      {"name": "crash-process", "target": {"selector": "pool=crash"},
       "change": {"migConfig": "all-1g.10gb"},
       "strategy": {"waves": ["1", "50%", "100%"], "maxUnavailable": "3", "soakSeconds": 0,
                    "failureThreshold": {"perWave": "0", "total": "0", "action": "pause"},
                    "manualPromotion": false, "nodeTimeoutSeconds": 60}}
      """;

  private static String fleetYaml() {
    StringBuilder yaml = new StringBuilder("nodes:\n");
    for (String zone : List.of("a", "b")) {
      yaml.append(
          """
            - name-prefix: crash-%s-h100
              count: %d
              host: ubuntu
              zone: zone-%s
              labels: {pool: crash}
              driver-version: "580.95.05"
              gpus:
                - model: "0x233010DE"
                  count: 1
          """
              .formatted(zone, NODES / 2, zone));
    }
    return yaml.toString();
  }

  /** The rollout as seen when the control plane is killed. */
  private record Snapshot(Set<String> inFlight, Set<String> pending) {}

  /** Waits until wave 2 has started nodes and some of them are still in flight. */
  private static Snapshot awaitWaveTwoInFlight(RolloutApi api, String id) {
    return await("wave 2 of rollout " + id + " has a node in flight")
        .atMost(MID_WAVE_BOUND)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> waveTwoInFlight(api.events(id)), Optional::isPresent)
        .orElseThrow();
  }

  private static Optional<Snapshot> waveTwoInFlight(List<JsonNode> events) {
    if (events.isEmpty()) {
      return Optional.empty();
    }
    int wave = 0;
    Set<String> inFlight = new LinkedHashSet<>();
    boolean waveTwoStartedANode = false;
    for (JsonNode event : events) {
      String type = type(event);
      String node = event.at("/data/node").asText();
      switch (type) {
        case "wave-started" -> wave = event.at("/data/wave").asInt();
        case "node-started" -> {
          inFlight.add(node);
          waveTwoStartedANode |= wave == 2;
        }
        case "node-succeeded", "node-failed" -> inFlight.remove(node);
        default -> {}
      }
    }
    if (wave != 2 || !waveTwoStartedANode || inFlight.isEmpty()) {
      return Optional.empty();
    }
    Set<String> pending = new LinkedHashSet<>();
    createdWaves(events).forEach(pending::addAll);
    pending.removeAll(startedNodes(events));
    return Optional.of(new Snapshot(inFlight, pending));
  }

  private static void assertEveryPlannedNodeStartedOnceInItsWave(
      List<JsonNode> events, List<List<String>> waves) {
    List<String> started = startedNodes(events);
    assertThat(started).as("no node started twice").doesNotHaveDuplicates();
    List<String> planned = waves.stream().flatMap(List::stream).toList();
    assertThat(planned).hasSize(NODES);
    assertThat(started).as("no planned node skipped").containsExactlyInAnyOrderElementsOf(planned);
    int wave = 0;
    for (JsonNode event : events) {
      switch (type(event)) {
        case "wave-started" -> wave = event.at("/data/wave").asInt();
        case "node-started" -> {
          String node = event.at("/data/node").asText();
          assertThat(wave).as("a wave started before %s", node).isPositive();
          assertThat(waves.get(wave - 1))
              .as("%s starts in its planned wave %d", node, wave)
              .contains(node);
        }
        default -> {}
      }
    }
  }

  private static List<List<String>> createdWaves(List<JsonNode> events) {
    JsonNode created = events.getFirst();
    assertThat(type(created)).as("the rollout's first event").isEqualTo("created");
    List<List<String>> waves = new ArrayList<>();
    for (JsonNode wave : created.at("/data/waves")) {
      List<String> nodes = new ArrayList<>();
      wave.forEach(n -> nodes.add(n.asText()));
      waves.add(nodes);
    }
    return waves;
  }

  private static List<String> startedNodes(List<JsonNode> events) {
    return nodesOf(events, "node-started")
        .filter(e -> e.at("/data/phase").asText().equals("forward"))
        .map(e -> e.at("/data/node").asText())
        .toList();
  }

  private static List<String> succeededNodes(List<JsonNode> events) {
    return nodesOf(events, "node-succeeded").map(e -> e.at("/data/node").asText()).toList();
  }

  private static Stream<JsonNode> nodesOf(List<JsonNode> events, String type) {
    return events.stream().filter(e -> type(e).equals(type));
  }

  private static JsonNode last(List<JsonNode> events, String type) {
    return events.stream()
        .filter(e -> type(e).equals(type))
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no " + type + " event among " + events.size()));
  }

  /** io.fleetwave.rollout.node-started.v1 -> node-started */
  private static String type(JsonNode event) {
    return event
        .get("type")
        .asText()
        .replaceFirst("^io\\.fleetwave\\.rollout\\.", "")
        .replaceFirst("\\.v\\d+$", "");
  }

  private static void awaitProjected(EmbeddedPostgres postgres) throws SQLException {
    try (Connection db =
        DriverManager.getConnection(
            postgres.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD)) {
      await("the %d simulated nodes are projected with their GPUs and driver".formatted(NODES))
          .atMost(PROJECTED_BOUND)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  count(db, "SELECT count(DISTINCT node) FROM gpus WHERE node LIKE 'crash-%'")
                          == NODES
                      && count(
                              db,
                              "SELECT count(*) FROM nodes WHERE name LIKE 'crash-%'"
                                  + " AND driver_version IS NOT NULL")
                          == NODES);
    }
  }

  private static long count(Connection db, String sql) {
    try (Statement s = db.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException notYet) {
      return -1; // Flyway has not created the tables yet.
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
