package io.fleetwave.controlplane.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.HeartbeatingFleet;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.testsupport.services.KafkaExtension;
import io.fleetwave.testsupport.services.PostgresExtension;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 11's PostgreSQL fault: the packaged control plane runs as a child process (as an operator
 * runs it) against an embedded Kafka and PostgreSQL of this JVM while a fleet heartbeats; the
 * database is stopped for {@code -Dfault.outageSeconds} (default 60) and started again on the same
 * data and port. Meanwhile readiness is DOWN naming the wait, liveness stays UP and the API answers
 * 503 problem+json; afterwards the projection has resumed by itself, every published event is
 * projected exactly once with no per-node seq gap, the rows equal a rebuild from offset 0, the API
 * answers 200 and the rollout engine holds its leader lock again. Prints the figures.
 */
// Its own PostgreSQL (never @Shared): the test stops and restarts it.
@ExtendWith({KafkaExtension.class, PostgresExtension.class})
class PostgresOutageIT {
  private static final Path APP = Path.of("target", "quarkus-app");
  private static final Duration OUTAGE =
      Duration.ofSeconds(Long.getLong("fault.outageSeconds", 60));
  private static final int NODES = 40;
  private static final Duration HEARTBEAT = Duration.ofMillis(500);
  private static final Duration SETTLE_BOUND = Duration.ofSeconds(120);
  private static final Duration NOTICE_BOUND = Duration.ofSeconds(30);
  private static final Duration RESUME_BOUND = Duration.ofSeconds(60);
  private static final Duration LEADER_BOUND = Duration.ofSeconds(30);
  private static final String PROJECTION_CHECK = "fleetwave-projection";
  private static final String WAITING_LOG = "projection waiting for PostgreSQL: ";
  private static final String RESUMED_LOG = "projection resumed: PostgreSQL is back";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  // The rollout engine's leader lease (EngineLeadership, migration V12), held while unexpired.
  private static final String LEADER_LOCKS =
      "SELECT count(*) FROM engine_leader WHERE expires_at > now()";

  @Test
  void theProjectionWaitsOutAPostgresOutageAndResumesByItselfLosingNothing(
      KafkaBroker kafka, EmbeddedPostgres postgres) throws Exception {
    Path work = Files.createDirectories(Path.of("target", "postgres-outage-it").toAbsolutePath());
    Path log = work.resolve("control-plane.log");
    FleetTopics.create(kafka);
    try (ControlPlaneProcess controlPlane =
            ControlPlaneProcess.start(APP, freePort(), environment(kafka, postgres), log);
        HeartbeatingFleet fleet =
            new HeartbeatingFleet(
                kafka.bootstrapServers(), "outage", NODES, HEARTBEAT, controlPlane::enroll)) {
      Api api =
          new Api(controlPlane.port, controlPlane.managementPort, controlPlane.token("admin"));
      String probeNode = fleet.nodes().getFirst();
      await("the fleet projected before the outage")
          .atMost(SETTLE_BOUND)
          .until(() -> projectedSeq(postgres, probeNode) >= 5);
      await("the rollout engine holds its leader lease")
          .atMost(LEADER_BOUND)
          .until(() -> count(postgres, LEADER_LOCKS) == 1);

      postgres.stop();
      Instant stopped = Instant.now();
      String reason =
          await("readiness to name the projection's wait")
              .atMost(NOTICE_BOUND)
              .until(() -> api.projectionDownReason(), Optional::isPresent)
              .orElseThrow();
      Duration noticed = Duration.between(stopped, Instant.now());
      assertThat(reason).startsWith("projection waiting for PostgreSQL since ");
      assertThat(api.status("/q/health/ready")).isEqualTo(503);
      HttpResponse<String> during = api.get("/api/v1/nodes/" + probeNode);
      assertThat(during.statusCode()).as(during.body()).isEqualTo(503);
      assertThat(during.headers().firstValue("Content-Type"))
          .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
      assertThat(JSON.readTree(during.body()).path("status").asInt()).isEqualTo(503);
      int livenessSamples = 0;
      while (Duration.between(stopped, Instant.now()).compareTo(OUTAGE) < 0) {
        HttpResponse<String> live = api.get("/q/health/live");
        assertThat(live.statusCode())
            .as("liveness during the outage: %s", live.body())
            .isEqualTo(200);
        livenessSamples++;
        long left = OUTAGE.minus(Duration.between(stopped, Instant.now())).toMillis();
        Thread.sleep(Math.clamp(left, 0, 1000)); // the outage's length is the fault itself
      }
      assertThat(api.projectionDownReason())
          .as("still waiting at the end of the outage")
          .isPresent();

      postgres.restart();
      Instant back = Instant.now();
      Duration outage = Duration.between(stopped, back);
      await("the projection to resume by itself")
          .atMost(RESUME_BOUND)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> api.projectionDownReason().isEmpty());
      Duration resumed = Duration.between(back, Instant.now());
      await("the API to answer from the database again")
          .atMost(RESUME_BOUND)
          .until(() -> api.status("/api/v1/nodes/" + probeNode) == 200);
      await("the rollout engine to hold its leader lease again")
          .atMost(LEADER_BOUND)
          .until(() -> count(postgres, LEADER_LOCKS) == 1);
      Duration leader = Duration.between(back, Instant.now());

      fleet.stop();
      Map<String, Long> published = fleet.published();
      await("every published event projected")
          .atMost(SETTLE_BOUND)
          .until(() -> projectedCounts(postgres).equals(published));
      Duration caughtUp = Duration.between(back, Instant.now());

      assertNoSeqGap(postgres, published);
      JsonNode rebuild = api.rebuild();
      assertThat(rebuild.path("equal").asBoolean()).as("rebuild: %s", rebuild).isTrue();
      assertThat(api.status("/q/health/ready")).isEqualTo(200);
      assertThat(api.status("/q/health/live")).isEqualTo(200);
      String output = Files.readString(log);
      assertThat(output.lines().filter(l -> l.contains(WAITING_LOG)))
          .as("one log line when the wait starts (%s)", log)
          .hasSize(1);
      assertThat(output.lines().filter(l -> l.contains(RESUMED_LOG)))
          .as("one log line when it ends (%s)", log)
          .hasSize(1);

      System.out.printf(
          "PostgreSQL outage: %.1f s while %d nodes heartbeat every %d ms%n"
              + "  readiness DOWN with the reason after  %.1f s (liveness UP in %d samples)%n"
              + "  projection resumed after the database was back: %.1f s%n"
              + "  every event of the outage projected after:       %.1f s%n"
              + "  rollout engine leading again after:              %.1f s%n"
              + "  events published: %d, projected: %d, seq gaps: 0, rebuild equal: %s%n",
          outage.toMillis() / 1000.0,
          NODES,
          HEARTBEAT.toMillis(),
          noticed.toMillis() / 1000.0,
          livenessSamples,
          resumed.toMillis() / 1000.0,
          caughtUp.toMillis() / 1000.0,
          leader.toMillis() / 1000.0,
          fleet.total(),
          projectedCounts(postgres).values().stream().mapToLong(Long::longValue).sum(),
          rebuild.path("equal").asBoolean());
    }
  }

  /**
   * Heartbeats are not kept in the history (only their newest, on the node row), so seq continuity
   * is read from the node row: its position and the events it numbered but never got.
   */
  private static void assertNoSeqGap(EmbeddedPostgres postgres, Map<String, Long> published)
      throws SQLException {
    try (Connection connection = connect(postgres);
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT last_seq, missed_events FROM nodes WHERE name = ?")) {
      for (var node : published.entrySet()) {
        statement.setString(1, node.getKey());
        try (ResultSet rows = statement.executeQuery()) {
          rows.next();
          assertThat(new long[] {rows.getLong(1), rows.getLong(2)})
              .as("%s: last seq, missed events", node.getKey())
              .containsExactly(node.getValue() - 1, 0);
        }
      }
    }
  }

  /** Events applied per node of the fleet (one epoch each: seqs numbered less those missed). */
  private static Map<String, Long> projectedCounts(EmbeddedPostgres postgres) throws SQLException {
    Map<String, Long> counts = new LinkedHashMap<>();
    try (Connection connection = connect(postgres);
        ResultSet rows =
            connection
                .createStatement()
                .executeQuery(
                    "SELECT name, last_seq + 1 - missed_events FROM nodes WHERE name LIKE"
                        + " 'outage-%' ORDER BY substring(name from 8)::int")) {
      while (rows.next()) {
        counts.put(rows.getString(1), rows.getLong(2));
      }
    }
    return counts;
  }

  private static long projectedSeq(EmbeddedPostgres postgres, String node) throws SQLException {
    try (Connection connection = connect(postgres);
        PreparedStatement statement =
            connection.prepareStatement("SELECT last_seq FROM nodes WHERE name = ?")) {
      statement.setString(1, node);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? rows.getLong(1) : -1;
      }
    }
  }

  private static long count(EmbeddedPostgres postgres, String sql) throws SQLException {
    try (Connection connection = connect(postgres);
        ResultSet rows = connection.createStatement().executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static Connection connect(EmbeddedPostgres postgres) throws SQLException {
    return DriverManager.getConnection(
        postgres.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD);
  }

  private static Map<String, String> environment(KafkaBroker kafka, EmbeddedPostgres postgres) {
    return Map.of(
        "KAFKA_BOOTSTRAP_SERVERS",
        kafka.bootstrapServers(),
        "QUARKUS_DATASOURCE_REACTIVE_URL",
        postgres.reactiveUrl(),
        "QUARKUS_DATASOURCE_JDBC_URL",
        postgres.jdbcUrl(),
        "QUARKUS_DATASOURCE_USERNAME",
        EmbeddedPostgres.USER,
        "QUARKUS_DATASOURCE_PASSWORD",
        EmbeddedPostgres.PASSWORD,
        "FLEETWAVE_NODE_IDENTITY_ENROLMENTS_PER_SOURCE",
        BrokerOutageIT.ONE_ADDRESS_FLEET);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** The control plane's HTTP API, every call bounded. */
  private record Api(int port, int managementPort, String token) {
    HttpResponse<String> get(String path) throws IOException, InterruptedException {
      return HTTP.send(
          HttpRequest.newBuilder(uri(path))
              .timeout(Duration.ofSeconds(10))
              .header("Authorization", "Bearer " + token)
              .build(),
          HttpResponse.BodyHandlers.ofString());
    }

    int status(String path) throws IOException, InterruptedException {
      return get(path).statusCode();
    }

    /** The projection check's reason when readiness reports it DOWN. */
    Optional<String> projectionDownReason() throws IOException, InterruptedException {
      JsonNode health = JSON.readTree(get("/q/health/ready").body());
      for (JsonNode check : health.path("checks")) {
        if (check.path("name").asText().equals(PROJECTION_CHECK)
            && check.path("status").asText().equals("DOWN")) {
          return Optional.of(check.at("/data/reason").asText());
        }
      }
      return Optional.empty();
    }

    JsonNode rebuild() throws IOException, InterruptedException {
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(uri("/api/v1/admin/projection/rebuild?timeoutSeconds=300"))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .timeout(Duration.ofSeconds(330))
                  .header("Authorization", "Bearer " + token)
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      return JSON.readTree(response.body());
    }

    /** Health and metrics are on the management port, everything else on the API's. */
    private URI uri(String path) {
      int target =
          path.startsWith("/q/health") || path.startsWith("/q/metrics") ? managementPort : port;
      return URI.create("http://localhost:" + target + path);
    }
  }
}
