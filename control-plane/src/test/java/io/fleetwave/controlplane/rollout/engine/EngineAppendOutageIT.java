package io.fleetwave.controlplane.rollout.engine;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.fixtures.FleetNodes;
import io.fleetwave.controlplane.fixtures.FleetNodes.Node;
import io.fleetwave.testsupport.logging.LogRecords;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.common.annotation.Identifier;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An engine whose appends Kafka does not take says so once, however many rounds fail, and does not
 * say Kafka is back until an append is taken. Its Kafka client talks to a socket that accepts
 * connections and never answers (a broker gone silent); the rest of the application keeps the real
 * broker. The rollout it must log is created but not logged yet, so the takeover between two
 * refused rounds reads nothing from Kafka: an engine that took that as Kafka being back logged
 * "resumed" and "waiting" again every round (21 times in the system tier's minute of outage).
 */
@QuarkusTest
class EngineAppendOutageIT {
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final String WAITING = "rollout engine waiting for Kafka";
  private static final String RESUMED = "rollout engine resumed";
  private static final String TAKEN_OVER = "rollout engine leads in term";
  private static final Map<String, String> LABELS = Map.of("suite", "append-outage");

  @Inject
  @Identifier("default-kafka-broker")
  Map<String, Object> kafka;

  @Inject RolloutEngines engines;

  @Test
  void refusedAppendsAreOneOutageUntilKafkaTakesOne() throws IOException {
    FleetNodes.publishAndAwait(List.of(Node.ubuntuH100("ao-ubu-1", "z1", 1, LABELS)));
    engines.stopEngine();
    String rollout = null;
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        LogRecords log = new LogRecords(RolloutEngine.class)) {
      Map<String, Object> away = new HashMap<>(kafka);
      away.put("bootstrap.servers", "127.0.0.1:" + silent.getLocalPort());
      RolloutEngine refused = engines.create(EngineFaults.NONE, away);
      try {
        refused.start();
        await("the engine appending to a silent Kafka leads").atMost(BOUND).until(refused::leading);
        rollout = create();
        // Each refused round ends in a takeover: two after the first refusal are two more rounds.
        await("two rounds after the first refused append")
            .atMost(BOUND)
            .until(() -> after(log.lines(), WAITING, TAKEN_OVER) >= 2);
        List<String> lines = log.lines();
        assertThat(lines.stream().filter(line -> line.contains(WAITING)))
            .as("one line for the outage: %s", lines)
            .hasSize(1);
        assertThat(lines).as("Kafka is not back").noneMatch(line -> line.contains(RESUMED));
      } finally {
        refused.close();
      }
    } finally {
      RolloutEngine engine = engines.create(EngineFaults.NONE);
      engine.start();
      engines.adopt(engine);
      if (rollout != null) {
        String id = rollout;
        // Logged by the application's engine once it leads; then ended, for the other tests.
        await("rollout " + id + " logged by the application's engine")
            .atMost(BOUND)
            .until(
                () ->
                    given().post("/api/v1/rollouts/" + id + "/abort").then().extract().statusCode(),
                status -> status == 200 || status == 202);
      }
    }
  }

  /** How many lines containing {@code counted} follow the first containing {@code first}. */
  private static long after(List<String> lines, String first, String counted) {
    int start = -1;
    for (int i = 0; i < lines.size() && start < 0; i++) {
      if (lines.get(i).contains(first)) {
        start = i;
      }
    }
    return start < 0
        ? 0
        : lines.subList(start, lines.size()).stream().filter(l -> l.contains(counted)).count();
  }

  /** A rollout over the one node, created through the API: its id. */
  private static String create() {
    return given()
        .contentType("application/json")
        .body(
            """
            {"name": "append-outage", "target": {"selector": "suite=append-outage"},
             "change": {"migConfig": "all-balanced"},
             "strategy": {"waves": ["100%"], "maxUnavailable": "1", "soakSeconds": 0,
                          "manualPromotion": false,
                          "failureThreshold": {"perWave": "0", "total": "0", "action": "pause"},
                          "nodeTimeoutSeconds": 600}}
            """)
        .post("/api/v1/rollouts")
        .then()
        .statusCode(201)
        .extract()
        .path("id");
  }
}
