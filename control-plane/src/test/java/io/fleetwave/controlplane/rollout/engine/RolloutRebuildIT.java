package io.fleetwave.controlplane.rollout.engine;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.fixtures.CanaryRollouts;
import io.fleetwave.controlplane.fixtures.FleetNodes;
import io.fleetwave.controlplane.fixtures.FleetNodes.Node;
import io.fleetwave.controlplane.fixtures.LoggedRollouts;
import io.fleetwave.core.rollout.decide.LoggedRecord;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutPaused;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The rollout tables are a projection of fleet.rollout-events: a rollout the engine ran (taken up,
 * paused, aborted) rebuilds from the log alone, row for row, into a scratch schema and into the
 * live tables after their rows were dropped.
 */
@QuarkusTest
class RolloutRebuildIT {
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final Map<String, String> LABELS = Map.of("suite", "rebuild");
  private static final List<Node> FLEET =
      List.of(
          Node.ubuntuH100("rb-ubu-1", "z1", 2, LABELS),
          Node.ubuntuH100("rb-ubu-2", "z1", 2, LABELS),
          Node.ubuntuH100("rb-ubu-3", "z2", 2, LABELS));

  @Inject Pool pool;
  @Inject LoggedRollouts rollouts;

  @Test
  void droppedRolloutRowsRebuildFromTheLogEqualRowForRow() {
    FleetNodes.publishAndAwait(FLEET);
    String id = runPauseAndAbortARollout();
    RolloutRebuild rebuild = rollouts.rebuild(BOUND);
    Map<UUID, List<LoggedRecord>> log = rollouts.readAll(BOUND);
    List<Envelope<RolloutEvent>> events =
        log.get(UUID.fromString(id)).stream().map(LoggedRecord::envelope).toList();
    RolloutCreated created = (RolloutCreated) events.getFirst().data();
    assertThat(created.selfContained()).as("RolloutCreated carries spec and plan").isTrue();
    // The subject of the token the requests carried (RestAssuredDefaults: the tests' admin).
    assertThat(created.actor()).isEqualTo("test-admin");
    assertThat(events)
        .map(Envelope::data)
        .filteredOn(RolloutPaused.class::isInstance)
        .map(e -> ((RolloutPaused) e).actor())
        .containsExactly("test-admin");

    rebuild.recreate("rollout_rebuild_it");
    rebuild.rebuild(log, "rollout_rebuild_it");
    assertThat(rebuild.differences("public", "rollout_rebuild_it", 100)).isEmpty();
    assertThat(rebuild.rowCounts("rollout_rebuild_it"))
        .allSatisfy((table, rows) -> assertThat(rows).as(table).isPositive());

    rebuild.recreate("rollout_before_it");
    for (String table : List.of("rollouts", "rollout_nodes", "rollout_node_states")) {
      execute("INSERT INTO rollout_before_it." + table + " SELECT * FROM public." + table);
    }
    execute(
        "INSERT INTO rollout_before_it.rollout_event_log SELECT * FROM public.rollout_event_log");
    execute("DELETE FROM public.rollouts WHERE state <> 'created'");
    assertThat(rebuild.differences("rollout_before_it", "public", 100))
        .as("the dropped rows are missing before the rebuild")
        .isNotEmpty();
    Set<UUID> thisRollout = Set.of(UUID.fromString(id));
    assertThat(rebuild.differences("rollout_before_it", "public", thisRollout, 100))
        .as("this rollout's rows among them, compared alone")
        .isNotEmpty()
        .allSatisfy(row -> assertThat(row).contains(id));
    assertThat(rebuild.differences("rollout_before_it", "public", Set.of(UUID.randomUUID()), 100))
        .as("a rollout the log does not hold has rows on neither side")
        .isEmpty();

    rebuild.rebuild(log, "public");

    assertThat(rebuild.differences("rollout_before_it", "public", 100)).isEmpty();
    assertThat(rebuild.differences("rollout_before_it", "public", thisRollout, 100)).isEmpty();
    given()
        .get("/api/v1/rollouts/" + id)
        .then()
        .statusCode(200)
        .body("state", org.hamcrest.Matchers.equalTo("aborted"));
  }

  /** A rollout the engine takes up, then paused and aborted through the API: its id. */
  private String runPauseAndAbortARollout() {
    String id = CanaryRollouts.startCanary("rebuild-me", "suite=rebuild", BOUND);
    given()
        .queryParam("reason", "look")
        .post("/api/v1/rollouts/" + id + "/pause")
        .then()
        .statusCode(200);
    given().post("/api/v1/rollouts/" + id + "/abort").then().statusCode(200);
    return id;
  }

  private void execute(String sql) {
    pool.query(sql).execute().await().atMost(BOUND);
  }
}
