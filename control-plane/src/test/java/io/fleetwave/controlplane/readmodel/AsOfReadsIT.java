package io.fleetwave.controlplane.readmodel;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fleetwave.controlplane.fixtures.FourProjectionConsumers;
import io.fleetwave.controlplane.fixtures.HeartbeatingFleet;
import io.fleetwave.controlplane.fixtures.NodeActions;
import io.fleetwave.controlplane.fixtures.NodeEnrolments;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testfixtures.events.NodeRegisteredBuilder;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import io.restassured.response.ValidatableResponse;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The fleet as of a past moment (issue 35, item 1), checked against what the API showed at that
 * moment: while a real fleet changes (signed events through Kafka, projected into PostgreSQL, a
 * heartbeating fleet beside it), the test records the current answers of the node list (full,
 * brief, paged, filtered), each node, the summary and the version distribution after each change,
 * then asks each of them again with asOf for each recorded moment. The fleet-wide answers (summary,
 * versions) must hold only this test's nodes: it runs first in the application of {@link
 * FourProjectionConsumers} (its other class, ParallelConsumersIT, runs last) rather than in an
 * application of its own.
 */
@QuarkusTest
@TestProfile(FourProjectionConsumers.class)
class AsOfReadsIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final URI SOURCE = URI.create("urn:fleetwave:asof-test");
  private static final String A = "asof-a";
  private static final String B = "asof-b";
  private static final String C = "asof-c";
  private static final String OLD_DRIVER = "580.95.05";
  private static final String NEW_DRIVER = "580.105.08";
  private static final ObjectMapper JSON = new ObjectMapper();

  @Inject Pool pool;

  /** The reads recorded and asked again, as path and query parameters. */
  private static final List<Read> READS =
      List.of(
          read("/api/v1/nodes", "selector", "suite=asof", "size", "500"),
          read("/api/v1/nodes", "selector", "suite=asof", "view", "brief"),
          read("/api/v1/nodes", "selector", "suite=asof", "size", "1", "page", "1"),
          read("/api/v1/nodes", "gpuModel", Events.H100, "selector", "pool=train"),
          read("/api/v1/nodes", "hostKind", "talos", "zone", "asof-zone"),
          read("/api/v1/nodes/" + A),
          read("/api/v1/nodes/" + B),
          read("/api/v1/nodes/" + C),
          read("/api/v1/fleet/summary"),
          read("/api/v1/fleet/versions"),
          read("/api/v1/fleet/versions", "zone", "asof-zone"));

  @ConfigProperty(name = "kafka.bootstrap.servers")
  String bootstrap;

  private record Read(String path, List<String> params) {
    Response get(Map<String, String> extra) {
      Map<String, String> query = new LinkedHashMap<>();
      for (int i = 0; i < params.size(); i += 2) {
        query.put(params.get(i), params.get(i + 1));
      }
      query.putAll(extra);
      return given().queryParams(query).get(path);
    }

    @Override
    public String toString() {
      return path + " " + params;
    }
  }

  /** A read of {@code path} with query parameters given as name, value, name, value... */
  private static Read read(String path, String... params) {
    return new Read(path, List.of(params));
  }

  /** What one read answered: its status and body. */
  private record Answer(int status, JsonNode body) {}

  /** The answers of every read at one moment. */
  private record Recorded(Instant moment, Map<Read, Answer> answers) {}

  @Test
  void answersAsOfEachMomentWhatTheApiShowedThen() throws Exception {
    List<Recorded> recorded = new ArrayList<>();
    try (TopicClient topic = new TopicClient();
        HeartbeatingFleet fleet =
            new HeartbeatingFleet(
                bootstrap, "asof-hb", 2, Duration.ofMillis(200), NodeEnrolments::enroll)) {
      // 0. A heartbeating fleet (its events are stamped a month ago: before every moment here).
      Map<String, Long> joined = new LinkedHashMap<>();
      fleet.nodes().forEach(node -> joined.put(node, 2L)); // registered, inventory, a heartbeat
      awaitPositions(joined);
      recorded.add(record(summary -> summary.path("totalNodes").asLong() == 2));

      // 1. Two nodes join beside it.
      publish(topic, A, 1, 0, registered(A, HostKind.UBUNTU, OLD_DRIVER, "train"));
      publish(topic, A, 1, 1, Events.inventory(Events.H100, 2, MigMode.DISABLED));
      publish(topic, B, 1, 0, registered(B, HostKind.TALOS, OLD_DRIVER, "infer"));
      publish(topic, B, 1, 1, Events.inventory(Events.L4, 1, MigMode.DISABLED));
      awaitPositions(Map.of(A, 1L, B, 1L));
      recorded.add(record(summary -> summary.path("totalNodes").asLong() == 4));

      // 2. A spec for A (a new driver); A turns MIG on and accepts it; B moves to another pool.
      putSpec(A, NEW_DRIVER);
      publish(topic, A, 1, 2, Events.inventory(Events.H100, 2, MigMode.ENABLED));
      publish(topic, A, 1, 3, new SpecAccepted(1, List.of()));
      publish(topic, B, 1, 2, registered(B, HostKind.TALOS, NEW_DRIVER, "train"));
      awaitPositions(Map.of(A, 3L, B, 2L));
      recorded.add(record(summary -> summary.path("migModes").path("enabled").asLong() == 2));

      // 3. A runs the new driver and has applied its spec; C joins.
      publish(topic, A, 1, 4, registered(A, HostKind.UBUNTU, NEW_DRIVER, "train"));
      publish(topic, A, 1, 5, new SpecApplied(1));
      publish(topic, C, 1, 0, registered(C, HostKind.COS, NEW_DRIVER, "infer"));
      publish(topic, C, 1, 1, Events.inventory(Events.H200, 4, MigMode.DISABLED));
      awaitPositions(Map.of(A, 5L, C, 1L));
      recorded.add(record(summary -> summary.path("totalNodes").asLong() == 5));

      // 4. A boots (not converged until it re-applies); B's agent restarts (a new epoch).
      publish(topic, A, 1, 6, new NodeBooted("boot-2", "boot-1"));
      publish(topic, B, 2, 0, registered(B, HostKind.TALOS, NEW_DRIVER, "infer"));
      publish(topic, B, 2, 1, Events.inventory(Events.L4, 1, MigMode.DISABLED));
      await("B's new epoch projected")
          .atMost(BOUND)
          .until(() -> Arrays.equals(ProjectionRows.position(B), new long[] {2, 1}));
      awaitPositions(Map.of(A, 6L));
      recorded.add(record(summary -> summary.path("totalNodes").asLong() == 5));
    }

    for (Recorded then : recorded) {
      for (Map.Entry<Read, Answer> shown : then.answers().entrySet()) {
        Response past = shown.getKey().get(Map.of("asOf", then.moment().toString()));
        Answer asOf = answer(past);
        assertThat(asOf.status())
            .as("status of %s as of %s", shown.getKey(), then.moment())
            .isEqualTo(shown.getValue().status());
        if (asOf.status() != 200) {
          continue; // a 404 before the node joined: its problem body names the request
        }
        assertThat(past.header("Fleetwave-As-Of")).isEqualTo(then.moment().toString());
        assertThat(withoutLastSeen(asOf.body()))
            .as("%s as of %s", shown.getKey(), then.moment())
            .isEqualTo(withoutLastSeen(shown.getValue().body()));
        assertSeenNoLaterThan(asOf.body(), shown.getValue().body());
      }
    }
  }

  /**
   * The application's connections run queries without JIT compilation (application.properties says
   * why): the setting reaches PostgreSQL as each connection's startup parameter.
   */
  @Test
  void theApplicationsConnectionsCompileNoQuery() {
    String jit =
        pool.query("SHOW jit").execute().await().atMost(BOUND).iterator().next().getString(0);
    assertThat(jit).isEqualTo("off");
  }

  @Test
  void aMomentInTheFutureOrNotATimeIsABadRequestAndOneBeforeTheHistoryIsUnprocessable() {
    String future = Instant.now().plus(Duration.ofHours(1)).toString();
    for (String path :
        List.of("/api/v1/nodes", "/api/v1/fleet/summary", "/api/v1/fleet/versions")) {
      readAsOf(path, future)
          .statusCode(400)
          .body("parameter", org.hamcrest.Matchers.equalTo("asOf"))
          .body("detail", org.hamcrest.Matchers.containsString("in the future"));
      readAsOf(path, "yesterday")
          .statusCode(400)
          .body("detail", org.hamcrest.Matchers.containsString("RFC 3339"))
          .body("detail", org.hamcrest.Matchers.containsString("'yesterday'"));
    }
    // A local time without its offset is not RFC 3339.
    readAsOf("/api/v1/nodes/" + A, "2026-12-05T03:12:00").statusCode(400);
    // The control plane keeps 30 days of history (fleetwave.projection.history.retention).
    Response before = given().queryParam("asOf", "2000-01-01T00:00:00Z").get("/api/v1/nodes/" + A);
    assertThat(before.statusCode()).isEqualTo(422);
    Instant oldest = Instant.parse(before.jsonPath().getString("oldest"));
    assertThat(oldest)
        .isBetween(
            Instant.now().minus(Duration.ofDays(31)), Instant.now().minus(Duration.ofDays(30)));
    assertThat(before.jsonPath().getString("detail")).contains(oldest.toString());
    readAsOf("/api/v1/fleet/summary", oldest.toString()).statusCode(200);
  }

  /** The answer to a GET of {@code path} as of {@code moment} (the asOf parameter as given). */
  private static ValidatableResponse readAsOf(String path, String moment) {
    return given().queryParam("asOf", moment).get(path).then();
  }

  /**
   * Waits until the summary shows the change ({@code shows}: it is counted in the background),
   * records every read, then the moment: nothing but heartbeats happens until the next change.
   */
  private static Recorded record(Predicate<JsonNode> shows) {
    await("the summary counted after the change")
        .atMost(BOUND)
        .until(() -> shows.test(answer(read("/api/v1/fleet/summary").get(Map.of())).body()));
    Map<Read, Answer> answers = new LinkedHashMap<>();
    for (Read read : READS) {
      answers.put(read, answer(read.get(Map.of())));
    }
    Instant moment = Instant.now();
    return new Recorded(moment, answers);
  }

  private static Answer answer(Response response) {
    try {
      return new Answer(response.statusCode(), JSON.readTree(response.asString()));
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + response.asString(), e);
    }
  }

  /**
   * The body without the nodes' lastSeen: heartbeats are not history (V11), so as of a moment a
   * node was last seen at its newest event in the history; checked apart.
   */
  private static JsonNode withoutLastSeen(JsonNode body) {
    JsonNode copy = body.deepCopy();
    strip(copy);
    return copy;
  }

  private static void strip(JsonNode node) {
    if (node instanceof ObjectNode object) {
      object.remove("lastSeen");
    }
    node.forEach(AsOfReadsIT::strip);
  }

  /** Each node's lastSeen as of the moment is no later than the one shown then. */
  private static void assertSeenNoLaterThan(JsonNode past, JsonNode shown) {
    Map<String, Instant> then = lastSeen(shown);
    lastSeen(past)
        .forEach(
            (node, seen) ->
                assertThat(seen).as("lastSeen of %s", node).isBeforeOrEqualTo(then.get(node)));
  }

  private static Map<String, Instant> lastSeen(JsonNode body) {
    Map<String, Instant> seen = new LinkedHashMap<>();
    List<JsonNode> nodes = new ArrayList<>();
    if (body.has("items")) {
      body.get("items").forEach(nodes::add);
    } else if (body.has("lastSeen")) {
      nodes.add(body);
    }
    for (JsonNode node : nodes) {
      if (node.hasNonNull("lastSeen")) {
        seen.put(node.get("name").asText(), Instant.parse(node.get("lastSeen").asText()));
      }
    }
    return seen;
  }

  private static NodeRegistered registered(String node, HostKind kind, String driver, String pool) {
    return NodeRegisteredBuilder.forHost(node, kind)
        .zone("asof-zone")
        .driverVersion(driver)
        .labels(Map.of("suite", "asof", "pool", pool))
        .build();
  }

  /** An event stamped now, as an agent stamps it. */
  private static void publish(
      TopicClient topic, String node, long epoch, long seq, NodeEvent data) {
    topic.publish(Envelope.of(SOURCE, node, Instant.now(), epoch, seq, data));
  }

  private static void awaitPositions(Map<String, Long> seqs) {
    await("positions " + seqs)
        .atMost(BOUND)
        .until(
            () ->
                seqs.entrySet().stream()
                    .allMatch(
                        e -> {
                          long[] position = ProjectionRows.position(e.getKey());
                          return position != null && position[1] >= e.getValue();
                        }));
  }

  private static void putSpec(String node, String driver) {
    NodeActions.putSpec(node, Map.of("driverVersion", driver));
  }
}
