package io.fleetwave.demo.rollouts;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;

import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.rollout.engine.EngineFaults;
import io.fleetwave.controlplane.rollout.engine.RolloutEngine;
import io.fleetwave.controlplane.rollout.engine.RolloutEngines;
import io.fleetwave.demo.fixtures.RolloutFleetProfile;
import io.fleetwave.demo.fixtures.RolloutsApi;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The rollout engine end to end: the demo's simulated agents (140 nodes of all host kinds, in this
 * JVM) against the real embedded Kafka and PostgreSQL, driven through the API only.
 */
@QuarkusTest
@TestProfile(RolloutFleetProfile.class)
class RolloutEngineIT {
  @Inject RolloutEngines engines;

  @BeforeEach
  void fleetIsProjected() {
    RolloutFleetProfile.awaitProjected("crash", 12);
  }

  @Test
  void aMigRolloutOverOneHundredNodesRunsCanaryAndThreeWavesWithinItsLimits() {
    String spec =
        rollout(
            "mig-all",
            "pool=mig",
            "\"migConfig\": \"all-balanced\"",
            "[\"1\", \"10%\", \"50%\", \"100%\"]",
            "10%",
            0,
            "20%",
            "5%",
            600);
    JsonPath plan = dryRun(spec);
    String id = RolloutsApi.create(spec);

    JsonPath done = RolloutsApi.awaitState(id, "completed", Duration.ofSeconds(120));

    List<Map<String, Object>> events = RolloutsApi.events(id);
    List<List<String>> executedWaves = createdWaves(events);
    List<List<String>> shownWaves = new ArrayList<>();
    for (Map<String, Object> wave : plan.<Map<String, Object>>getList("waves")) {
      List<String> nodes = new ArrayList<>();
      for (Object batch : (List<?>) wave.get("batches")) {
        for (Object node : (List<?>) ((Map<?, ?>) batch).get("nodes")) {
          nodes.add((String) ((Map<?, ?>) node).get("node"));
        }
      }
      shownWaves.add(nodes);
    }
    assertThat(executedWaves)
        .as("the executed waves are the waves the dry run showed")
        .isEqualTo(shownWaves);
    assertThat(executedWaves).hasSize(4);
    assertThat(executedWaves.getFirst()).hasSize(1);
    int planned = plan.getInt("plannedNodes");
    assertThat(planned).isGreaterThanOrEqualTo(100);
    assertThat(plan.getList("excluded.node")).allMatch(n -> ((String) n).startsWith("mig-cos-l4"));

    assertEveryPlannedNodeStartedOnceInItsWave(events, executedWaves);
    assertThat(maxInFlight(events)).isLessThanOrEqualTo(plan.getInt("maxUnavailableNodes"));
    assertThat(done.getInt("progress.counts.succeeded")).isEqualTo(planned);
    assertThat(done.getInt("progress.counts.failed")).isZero();
    String stream = stream(given(), id);
    assertThat(stream)
        .as("the SSE stream of a finished rollout replays every event and ends")
        .contains(
            "id:1\n",
            "event:io.fleetwave.rollout.created.v2",
            "event:io.fleetwave.rollout.completed.v1")
        .contains("id:" + events.size() + "\n");
    String resumed = stream(given().header("Last-Event-ID", String.valueOf(events.size() - 1)), id);
    assertThat(resumed).contains("id:" + events.size() + "\n").doesNotContain("id:1\n");
    // The engine reads results from the head of fleet.node-events; the projection applies the same
    // records on its own consumers, so it may show the last nodes' layouts a moment later.
    ProjectionRows.awaitCount(
        "every H100 and H200 node shows its new layout in the projection",
        Duration.ofSeconds(30),
        "SELECT count(DISTINCT node) FROM gpu_instances WHERE node LIKE 'mig-%' AND profile = '3g.40gb'",
        greaterThanOrEqualTo(70L));
  }

  @Test
  void blockedNodesPauseTheRolloutAtItsThresholdAndResumeFinishesIt() {
    // A100: enabling MIG needs a GPU reset, which a running compute process blocks.
    long pid =
        simulator("fail-a100-1", "start-process", "{\"gpu\": 0, \"name\": \"train.py\"}")
            .getLong("pid");
    String spec =
        rollout(
            "fail",
            "pool=fail",
            "\"migConfig\": \"all-1g.10gb\"",
            "[\"1\", \"100%\"]",
            "2",
            0,
            "0",
            "100%",
            600);
    String id = RolloutsApi.create(spec);

    JsonPath paused = RolloutsApi.awaitState(id, "paused", Duration.ofSeconds(60));

    assertThat(paused.getString("progress.statusReason"))
        .contains("fail-a100-1", "reset", "train.py");
    simulator("fail-a100-1", "stop-process", "{\"gpu\": 0, \"pid\": " + pid + "}");
    action(id, "resume").statusCode(200);
    JsonPath done = RolloutsApi.awaitState(id, "completed", Duration.ofSeconds(60));
    assertThat(done.getInt("progress.counts.failed")).isEqualTo(1);
    assertThat(done.getInt("progress.counts.succeeded")).isEqualTo(5);
    action(id, "resume").statusCode(409).body("detail", containsString("completed"));
  }

  @Test
  void aNodeThatNeverAnswersFailsAtItsTimeoutAndRollbackRestoresEveryTouchedNode() {
    Map<String, Integer> before = layouts("back-h100-%");
    simulator("back-h100-5", "crash-agent", "{}");
    String spec =
        rollout(
            "back",
            "pool=back",
            "\"migConfig\": \"all-3g.40gb\"",
            "[\"1\", \"50%\", \"100%\"]",
            "3",
            0,
            "0",
            "100%",
            3);
    String id = RolloutsApi.create(spec);
    try {
      JsonPath paused = RolloutsApi.awaitState(id, "paused", Duration.ofSeconds(60));
      assertThat(paused.getString("progress.statusReason"))
          .contains("back-h100-5", "no result within 3 s");

      action(id, "rollback").statusCode(200);
      JsonPath rolledBack = RolloutsApi.awaitState(id, "rolled-back", Duration.ofSeconds(60));
      assertThat(rolledBack.getString("progress.statusReason"))
          .isEqualTo("rollback requested: asked by rollback test");
    } finally {
      simulator("back-h100-5", "restart-agent", "{}");
    }
    List<Map<String, Object>> events = RolloutsApi.events(id);
    Set<String> touched = new HashSet<>(startedNodes(events, "forward"));
    assertThat(startedNodes(events, "rollback")).containsExactlyInAnyOrderElementsOf(touched);
    await("rolled-back nodes show their old layout again")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Map<String, Integer> now = layouts("back-h100-%");
              for (String node : touched) {
                assertThat(now.getOrDefault(node, 0))
                    .as(node)
                    .isEqualTo(before.getOrDefault(node, 0));
              }
            });
  }

  @Test
  void aDriverRolloutHandsEachNodeItsArtifactOrOsUpgradeAndWaitsForTheNewDriver() {
    String spec =
        rollout(
            "driver",
            "pool=driver",
            "\"driverVersion\": \"580.95.05\"",
            "[\"1\", \"100%\"]",
            "2",
            0,
            "0",
            "0",
            120);
    String id = RolloutsApi.create(spec);

    RolloutsApi.awaitState(id, "completed", Duration.ofSeconds(90));

    Map<String, Map<String, Object>> requests = new HashMap<>();
    for (Map<String, Object> event : RolloutsApi.events(id)) {
      String type = (String) event.get("type");
      if (type.contains("driver-install-requested") || type.contains("os-upgrade-requested")) {
        Map<String, Object> data = data(event);
        requests.put((String) data.get("node"), Map.of("type", type, "data", data));
      }
    }
    assertThat(requests)
        .containsOnlyKeys("driver-ubuntu-0", "driver-dc-0", "driver-talos-0", "driver-cos-0");
    assertThat(requests.get("driver-ubuntu-0").get("type"))
        .asString()
        .contains("driver-install-requested");
    assertThat(((Map<?, ?>) requests.get("driver-ubuntu-0").get("data")).get("artifactKind"))
        .isEqualTo("host-package");
    assertThat(((Map<?, ?>) requests.get("driver-dc-0").get("data")).get("artifactKind"))
        .isEqualTo("container-image");
    assertThat((String) ((Map<?, ?>) requests.get("driver-dc-0").get("data")).get("artifact"))
        .contains("580.95.05");
    assertThat(requests.get("driver-talos-0").get("type"))
        .asString()
        .contains("os-upgrade-requested");
    assertThat(((Map<?, ?>) requests.get("driver-talos-0").get("data")).get("osId"))
        .isEqualTo("talos");
    assertThat(requests.get("driver-cos-0").get("type"))
        .asString()
        .contains("os-upgrade-requested");
    ProjectionRows.awaitCount(
        "the projection shows every node on the new driver",
        Duration.ofSeconds(30),
        "SELECT count(*) FROM nodes WHERE name LIKE 'driver-%' AND driver_version = '580.95.05'",
        4);
  }

  @Test
  void anEngineThatCrashesMidWaveIsSucceededByOneThatNeitherRedoesNorSkipsANode() {
    AtomicInteger startBatches = new AtomicInteger();
    engines.stopEngine();
    RolloutEngine crashing =
        engines.create(
            appended -> {
              boolean starts =
                  appended.stream()
                      .anyMatch(e -> e.data() instanceof io.fleetwave.events.rollout.NodeStarted);
              if (starts && startBatches.incrementAndGet() == 3) {
                throw new EngineFaults.EngineCrash("after the third batch of NodeStarted");
              }
            });
    crashing.start();
    String spec =
        rollout(
            "crash",
            "pool=crash",
            "\"migConfig\": \"all-1g.10gb\"",
            "[\"1\", \"50%\", \"100%\"]",
            "3",
            0,
            "0",
            "0",
            600);
    String id = RolloutsApi.create(spec);
    await("the first engine crashed mid-rollout")
        .atMost(Duration.ofSeconds(60))
        .until(() -> startBatches.get() >= 3 && !crashing.leading());
    crashing.close();
    assertThat(RolloutsApi.rollout(id).getString("state")).isEqualTo("running");

    RolloutEngine successor = engines.create(EngineFaults.NONE);
    successor.start();
    engines.adopt(successor);

    RolloutsApi.awaitState(id, "completed", Duration.ofSeconds(90));
    List<Map<String, Object>> events = RolloutsApi.events(id);
    assertEveryPlannedNodeStartedOnceInItsWave(events, createdWaves(events));
    ProjectionRows.awaitCount(
        "the projection shows every node's new layout",
        Duration.ofSeconds(30),
        "SELECT count(DISTINCT node) FROM gpu_instances WHERE node LIKE 'crash-%' AND profile = '1g.10gb'",
        12);
  }

  @Test
  void aRolloutOverNodesOfAnActiveOneIs409AndUnknownActionsAre404() {
    String first =
        RolloutsApi.create(
            migOffOnTheCrashPool("hold")
                .replace("\"manualPromotion\": false", "\"manualPromotion\": true"));
    try {
      given()
          .contentType(ContentType.JSON)
          .body(migOffOnTheCrashPool("clash"))
          .post("/api/v1/rollouts")
          .then()
          .statusCode(409)
          .body("rollout.id", equalTo(first));
      given().post("/api/v1/rollouts/" + first + "/explode").then().statusCode(404);
    } finally {
      action(first, "abort").statusCode(200).body("state", equalTo("aborted"));
    }
  }

  // --- helpers ---

  /** A rollout that turns MIG off on the crash pool's nodes in one wave, one node at a time. */
  private static String migOffOnTheCrashPool(String name) {
    return rollout(
        name, "pool=crash", "\"migConfig\": \"all-disabled\"", "[\"100%\"]", "1", 0, "0", "0", 600);
  }

  private static String rollout(
      String name,
      String selector,
      String change,
      String waves,
      String maxUnavailable,
      int soak,
      String perWave,
      String total,
      int nodeTimeout) {
    return """
        {"name": "%s", "target": {"selector": "%s"}, "change": {%s},
         "strategy": {"waves": %s, "maxUnavailable": "%s", "maxZonesInFlight": 2, "soakSeconds": %d,
                      "failureThreshold": {"perWave": "%s", "total": "%s", "action": "pause"},
                      "manualPromotion": false, "nodeTimeoutSeconds": %d}}
        """
        .formatted(
            name, selector, change, waves, maxUnavailable, soak, perWave, total, nodeTimeout);
  }

  /** The rollout's SSE stream as {@code request} asks for it, "id: 1" read as "id:1". */
  private static String stream(RequestSpecification request, String id) {
    return request
        .accept("text/event-stream")
        .get("/api/v1/rollouts/" + id + "/stream")
        .then()
        .statusCode(200)
        .extract()
        .asString()
        .replace(": ", ":");
  }

  private static JsonPath dryRun(String spec) {
    return given()
        .contentType(ContentType.JSON)
        .queryParam("dryRun", "true")
        .body(spec)
        .post("/api/v1/rollouts")
        .then()
        .statusCode(200)
        .extract()
        .jsonPath();
  }

  private static io.restassured.response.ValidatableResponse action(String id, String action) {
    return given()
        .queryParam("reason", "asked by " + action + " test")
        .post("/api/v1/rollouts/" + id + "/" + action)
        .then();
  }

  private static JsonPath simulator(String node, String action, String body) {
    return given()
        .contentType(ContentType.JSON)
        .body(body)
        .post("/api/v1/simulator/nodes/" + node + "/" + action)
        .then()
        .statusCode(200)
        .extract()
        .jsonPath();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> data(Map<String, Object> event) {
    return (Map<String, Object>) event.get("data");
  }

  @SuppressWarnings("unchecked")
  private static List<List<String>> createdWaves(List<Map<String, Object>> events) {
    Map<String, Object> created = events.getFirst();
    assertThat((String) created.get("type")).contains("rollout.created");
    return (List<List<String>>) data(created).get("waves");
  }

  private static List<String> startedNodes(List<Map<String, Object>> events, String phase) {
    List<String> out = new ArrayList<>();
    for (Map<String, Object> event : events) {
      if (((String) event.get("type")).contains("node-started")
          && phase.equals(data(event).get("phase"))) {
        out.add((String) data(event).get("node"));
      }
    }
    return out;
  }

  private static void assertEveryPlannedNodeStartedOnceInItsWave(
      List<Map<String, Object>> events, List<List<String>> waves) {
    List<String> started = startedNodes(events, "forward");
    assertThat(started).as("no node started twice").doesNotHaveDuplicates();
    List<String> planned = waves.stream().flatMap(List::stream).toList();
    assertThat(started).as("no planned node skipped").containsExactlyInAnyOrderElementsOf(planned);
    int wave = 0;
    for (Map<String, Object> event : events) {
      String type = (String) event.get("type");
      if (type.contains("wave-started")) {
        wave = ((Number) data(event).get("wave")).intValue();
      } else if (type.contains("node-started")) {
        String node = (String) data(event).get("node");
        assertThat(waves.get(wave - 1))
            .as("%s starts in its planned wave %d", node, wave)
            .contains(node);
      }
    }
  }

  private static int maxInFlight(List<Map<String, Object>> events) {
    int inFlight = 0;
    int max = 0;
    for (Map<String, Object> event : events) {
      String type = (String) event.get("type");
      if (type.contains("node-started")) {
        max = Math.max(max, ++inFlight);
      } else if (type.contains("node-succeeded") || type.contains("node-failed")) {
        inFlight--;
      }
    }
    return max;
  }

  private static Map<String, Integer> layouts(String like) {
    return ProjectionRows.countsBy(
        "SELECT node, count(*)::int AS n FROM gpu_instances WHERE node LIKE '"
            + like
            + "' GROUP BY node");
  }
}
