package io.fleetwave.controlplane.rollout.engine;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.fixtures.ApiReads;
import io.fleetwave.controlplane.fixtures.CanaryRollouts;
import io.fleetwave.controlplane.fixtures.EngineTakeovers;
import io.fleetwave.controlplane.fixtures.FleetNodes;
import io.fleetwave.controlplane.fixtures.FleetNodes.Node;
import io.fleetwave.controlplane.fixtures.LoggedRollouts;
import io.fleetwave.controlplane.rollout.fleet.RolloutPlanning;
import io.fleetwave.controlplane.rollout.store.RolloutStore;
import io.fleetwave.core.rollout.plan.RolloutPlan;
import io.fleetwave.core.rollout.plan.RolloutSpec;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RolloutEvent;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The rollout engine is isolated per rollout: a record in fleet.rollout-events that contradicts its
 * rollout, or does not decode, fails that rollout alone (state {@code failed}, the record named),
 * while another rollout goes on; the verdict survives a second takeover and a rebuild.
 */
@QuarkusTest
class RolloutIsolationIT {
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final List<Node> FLEET =
      List.of(
          Node.ubuntuH100("iso-a-1", "z1", 1, labels("a")),
          Node.ubuntuH100("iso-a-2", "z1", 1, labels("a")),
          Node.ubuntuH100("iso-b-1", "z1", 1, labels("b")),
          Node.ubuntuH100("iso-b-2", "z1", 1, labels("b")),
          Node.ubuntuH100("iso-c-1", "z1", 1, labels("c")),
          Node.ubuntuH100("iso-c-2", "z1", 1, labels("c")),
          Node.ubuntuH100("iso-d-1", "z1", 1, labels("d")),
          Node.ubuntuH100("iso-d-2", "z1", 1, labels("d")));

  @ConfigProperty(name = "kafka.bootstrap.servers")
  String bootstrap;

  @Inject Pool pool;
  @Inject ObjectMapper json;
  @Inject LoggedRollouts rollouts;
  @Inject RolloutEngines engines;
  @Inject RolloutPlanning planning;
  @Inject RolloutStore store;

  @Test
  void badRecordsFailTheirRolloutOnlyAndTheVerdictSurvivesTakeoverAndRebuild() {
    FleetNodes.publishAndAwait(FLEET);
    String contradicted = createAndAwaitTakenUp("iso-a");
    String healthy = createAndAwaitTakenUp("iso-b");
    String garbled = createAndAwaitTakenUp("iso-c");

    // A NodeStarted for a node rollout A does not plan, and bytes that are no event for C.
    RecordMetadata contradiction =
        send(
            contradicted,
            EventCodec.encode(
                Envelope.of(
                    URI.create("test:intruder"),
                    contradicted,
                    Instant.now(),
                    leaderTerm(),
                    1_000,
                    (RolloutEvent) new NodeStarted(1, "ghost", Phase.ROLLBACK, 3, null))));
    RecordMetadata garbage = send(garbled, "{not an event".getBytes(StandardCharsets.UTF_8));

    EngineTakeovers.takeOver(engines, BOUND);

    JsonPath a = awaitState(contradicted, "failed");
    assertThat(a.getString("progress.statusReason"))
        .contains(where(contradiction), "node-started", "has no planned node 'ghost'");
    JsonPath c = awaitState(garbled, "failed");
    assertThat(c.getString("progress.statusReason")).contains(where(garbage), "does not decode");
    // The healthy rollout goes on: the engine answers its operator request.
    given()
        .queryParam("reason", "still served")
        .post("/api/v1/rollouts/" + healthy + "/pause")
        .then()
        .statusCode(200);
    assertThat(state(healthy).getString("state")).isEqualTo("paused");

    EngineTakeovers.takeOver(engines, BOUND);
    given()
        .queryParam("reason", "served again")
        .post("/api/v1/rollouts/" + healthy + "/resume")
        .then()
        .statusCode(200);
    assertThat(state(contradicted).getString("progress.statusReason"))
        .isEqualTo(a.getString("progress.statusReason"));
    assertThat(failedEvents(contradicted)).as("the verdict is appended once").isEqualTo(1);
    assertThat(failedEvents(garbled)).isEqualTo(1);

    assertThat(rollouts.rebuiltDifferences("rollout_isolation_it", BOUND)).isEmpty();
    assertThat(
            pool.query(
                    "SELECT state, status_reason FROM rollout_isolation_it.rollouts WHERE id = '"
                        + contradicted
                        + "'")
                .execute()
                .await()
                .atMost(BOUND)
                .iterator()
                .next()
                .getString("status_reason"))
        .isEqualTo(a.getString("progress.statusReason"));
    given().post("/api/v1/rollouts/" + healthy + "/abort").then().statusCode(200);
  }

  /**
   * A rollout stored with a plan that changes no node (the API refuses one now; one stored before
   * stays in the database) cannot be logged: the engine fails it alone instead of failing every
   * round on it, which kept it 'created' and every rollout stored after it unstarted.
   */
  @Test
  void aStoredRolloutThatCannotBeLoggedFailsAloneAndTheNextOneStarts() throws Exception {
    FleetNodes.publishAndAwait(FLEET);
    // Every node of suite iso-d already runs this driver: nothing to change.
    RolloutSpec spec =
        json.readValue(
            """
            {"name": "iso-nothing",
             "target": {"selector": "suite=iso-d"},
             "change": {"driverVersion": "550.127.05"},
             "strategy": {"waves": ["1", "100%"], "maxUnavailable": "1", "soakSeconds": 0,
                          "manualPromotion": false, "nodeTimeoutSeconds": 600,
                          "failureThreshold": {"perWave": "0", "total": "0", "action": "pause"}}}
            """,
            RolloutSpec.class);
    RolloutPlan plan = planning.plan(spec).await().atMost(BOUND);
    assertThat(plan.plannedNodes()).isZero();
    String nothing = store.create(spec, plan, "alice").await().atMost(BOUND).id().toString();

    String next = createAndAwaitTakenUp("iso-d");

    JsonPath failed = awaitState(nothing, "failed");
    assertThat(failed.getString("progress.statusReason"))
        .contains("iso-nothing as stored cannot be logged", "'waves' must not be empty");
    assertThat(failedEvents(nothing)).isEqualTo(1);
    given().post("/api/v1/rollouts/" + next + "/abort").then().statusCode(200);
  }

  /**
   * The current leader's term: the intruding record must look like one of its appends, or the fold
   * would ignore it as a stale leader's (fencing) instead of judging it.
   */
  private long leaderTerm() {
    return pool.query("SELECT term FROM engine_leader")
        .execute()
        .await()
        .atMost(Duration.ofSeconds(10))
        .iterator()
        .next()
        .getLong("term");
  }

  private RecordMetadata send(String key, byte[] value) {
    Properties config = new Properties();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
      return producer
          .send(new ProducerRecord<>(Topics.ROLLOUT_EVENTS, key, value))
          .get(BOUND.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("could not write to " + Topics.ROLLOUT_EVENTS, e);
    }
  }

  private static String where(RecordMetadata record) {
    return record.topic() + "-" + record.partition() + "@" + record.offset();
  }

  private long failedEvents(String rollout) {
    return pool.query(
            "SELECT count(*) AS n FROM rollout_event_log WHERE rollout = '"
                + UUID.fromString(rollout)
                + "' AND event_type = 'io.fleetwave.rollout.failed.v1'")
        .execute()
        .await()
        .atMost(BOUND)
        .iterator()
        .next()
        .getLong("n");
  }

  /** A rollout over the two nodes labelled {@code suite}, taken up by the engine: its id. */
  private static String createAndAwaitTakenUp(String suite) {
    return CanaryRollouts.startCanary(suite, "suite=" + suite, BOUND);
  }

  private static JsonPath awaitState(String id, String state) {
    await("rollout " + id + " is " + state)
        .atMost(BOUND)
        .until(() -> state.equals(state(id).getString("state")));
    return state(id);
  }

  private static JsonPath state(String id) {
    return ApiReads.ok("/api/v1/rollouts/" + id);
  }

  private static Map<String, String> labels(String suite) {
    return Map.of("suite", "iso-" + suite);
  }
}
