package io.fleetwave.controlplane.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.fleetwave.controlplane.fixtures.ApiReads;
import io.fleetwave.controlplane.fixtures.CanaryRollouts;
import io.fleetwave.controlplane.fixtures.FleetNodes;
import io.fleetwave.controlplane.fixtures.FleetNodes.Node;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The read API of a rollout for pages and watchers (summary, per-node pages, listing by state) over
 * a rollout the real engine runs on nodes projected from real events. No agent answers, so the
 * canary stays in flight and the other nodes pending until the test pauses and aborts it.
 */
@QuarkusTest
class RolloutProgressApiIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final String UNKNOWN = "00000000-0000-0000-0000-000000000000";
  private static final List<Node> FLEET =
      List.of(node("rp-1", "z1"), node("rp-2", "z1"), node("rp-3", "z2"), node("rp-4", "z2"));

  @BeforeEach
  void projectFleetOnce() {
    FleetNodes.publishAndAwaitOnce(FLEET);
  }

  @Test
  void aRunningRolloutsSummaryAndNodePagesAgreeWithItsFullView() {
    String id = CanaryRollouts.startCanary("progress-api", "suite=progress-api", BOUND);
    try {
      JsonPath full = ApiReads.ok("/api/v1/rollouts/" + id);
      JsonPath summary = ApiReads.ok("/api/v1/rollouts/" + id + "/summary");
      assertThat(summary.getString("id")).isEqualTo(id);
      assertThat(summary.getString("name")).isEqualTo("progress-api");
      assertThat(summary.getString("state")).isEqualTo("running");
      assertThat(summary.getString("actor")).isEqualTo("test-admin");
      assertThat(summary.getString("change.migConfig")).isEqualTo("all-balanced");
      assertThat(summary.getList("strategy.waves", String.class)).containsExactly("1", "100%");
      assertThat(summary.getInt("plannedNodes")).isEqualTo(4);
      assertThat(summary.getMap("counts")).isEqualTo(full.getMap("progress.counts"));
      assertThat(summary.getMap("counts"))
          .containsEntry("in-flight", 1)
          .containsEntry("pending", 3)
          .containsEntry("succeeded", 0)
          .containsEntry("failed", 0);
      assertThat(summary.getInt("currentWave")).isEqualTo(full.getInt("progress.currentWave"));
      assertThat(summary.getList("waves.index", Integer.class)).containsExactly(1, 2);
      assertThat(summary.getList("waves.nodes", Integer.class))
          .isEqualTo(
              full.getList("progress.waves", Map.class).stream()
                  .map(w -> ((List<?>) w.get("nodes")).size())
                  .toList());
      assertThat(summary.getString("waves[0].startedAt")).isNotNull();
      assertThat(summary.getString("waves[0].finishedAt")).isNull();
      assertThat(summary.getString("waves[1].startedAt")).isNull();
      assertThat(summary.getMap("$")).doesNotContainKey("plan");
      assertThat(summary.getMap("$"))
          .as("no per-node data in the summary")
          .doesNotContainKey("progress");

      JsonPath inFlight = ApiReads.rolloutNodes(id, "in-flight");
      assertThat(inFlight.getInt("total")).isEqualTo(1);
      assertThat(inFlight.getString("items[0].node"))
          .isEqualTo(full.getString("progress.waves[0].nodes[0].node"));
      assertThat(inFlight.getInt("items[0].wave")).isEqualTo(1);
      assertThat(inFlight.getString("items[0].startedAt")).isNotNull();

      List<String> paged = new ArrayList<>();
      for (int page = 0; page < 2; page++) {
        JsonPath nodes = ApiReads.ok("/api/v1/rollouts/" + id + "/nodes?size=2&page=" + page);
        assertThat(nodes.getInt("total")).isEqualTo(4);
        assertThat(nodes.getInt("size")).isEqualTo(2);
        assertThat(nodes.getInt("page")).isEqualTo(page);
        paged.addAll(nodes.getList("items.node", String.class));
      }
      assertThat(paged)
          .containsExactlyInAnyOrderElementsOf(
              full.getList("progress.waves.nodes.flatten().node", String.class));
      assertThat(
              ApiReads.ok("/api/v1/rollouts/" + id + "/nodes?wave=2&state=pending").getInt("total"))
          .isEqualTo(3);

      assertThat(listed("running")).contains(id);
      assertThat(listed("paused,completed")).doesNotContain(id);
    } finally {
      abort(id);
    }
  }

  @Test
  void aPausedRolloutsSummaryNamesWhoPausedItAndWhyAndTheListingFiltersIt() {
    String id = CanaryRollouts.startCanary("progress-paused", "suite=progress-api", BOUND);
    try {
      given()
          .post("/api/v1/rollouts/" + id + "/pause?reason=checking the canary")
          .then()
          .statusCode(200);
      JsonPath summary = ApiReads.ok("/api/v1/rollouts/" + id + "/summary");
      assertThat(summary.getString("state")).isEqualTo("paused");
      assertThat(summary.getString("pausedBy")).isEqualTo("test-admin");
      assertThat(summary.getString("statusReason")).contains("checking the canary");

      assertThat(listed("paused")).contains(id);
      assertThat(listed("running")).doesNotContain(id);
      assertThat(listed("running,paused")).contains(id);
      assertThat(listed("running", "paused")).as("a repeated state parameter").contains(id);
    } finally {
      abort(id);
    }
    await("the abort reaches the summary")
        .atMost(BOUND)
        .until(
            () ->
                ApiReads.ok("/api/v1/rollouts/" + id + "/summary")
                    .getString("state")
                    .equals("aborted"));
    assertThat(ApiReads.ok("/api/v1/rollouts/" + id + "/summary").getString("pausedBy"))
        .as("pausedBy is only shown while paused")
        .isNull();
    assertThat(listed("aborted")).contains(id);
  }

  @Test
  void anUnknownRolloutIs404ProblemForItsSummaryNodesAndStream() {
    for (String path : List.of("/summary", "/nodes", "/nodes?state=failed", "/stream")) {
      given()
          .accept(path.equals("/stream") ? "text/event-stream" : "application/json")
          .get("/api/v1/rollouts/" + UNKNOWN + path)
          .then()
          .statusCode(404)
          .contentType("application/problem+json")
          .body("type", containsString("unknown-rollout"))
          .body("detail", containsString(UNKNOWN));
    }
    given().get("/api/v1/rollouts/not-a-uuid/summary").then().statusCode(404);
  }

  @Test
  void badFiltersAndPagingAre400ProblemsThatSayWhatIsAllowed() {
    given()
        .get("/api/v1/rollouts?state=running,sleeping")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("type", containsString("bad-filter"))
        .body("detail", containsString("'sleeping'"))
        .body("detail", containsString("created, running, paused, rolling-back, completed"))
        .body("parameter", equalTo("state"))
        .body("allowed", org.hamcrest.Matchers.hasItems("running", "rolled-back", "failed"));
    given()
        .get("/api/v1/rollouts/" + UNKNOWN + "/nodes?state=done")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", containsString("pending, in-flight, succeeded, failed"));
    for (String wave : List.of("0", "-1", "two", "1.5")) {
      given()
          .get("/api/v1/rollouts/" + UNKNOWN + "/nodes?wave=" + wave)
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body("detail", containsString("'wave'"))
          .body("detail", containsString("'" + wave + "'"));
    }
    given()
        .get("/api/v1/rollouts/" + UNKNOWN + "/nodes?size=501")
        .then()
        .statusCode(400)
        .body("type", containsString("bad-paging"));
    given().get("/api/v1/rollouts?size=0").then().statusCode(400);
  }

  @Test
  void theOpenApiDocumentDescribesTheReadEndpoints() {
    String openapi =
        given().get("/q/openapi?format=json").then().statusCode(200).extract().asString();
    assertThat(openapi)
        .contains("/api/v1/rollouts/{id}/summary", "/api/v1/rollouts/{id}/nodes")
        .contains("RolloutOverview", "RolloutNodeView", "pausedBy");
  }

  /** The ids GET /api/v1/rollouts lists, with one state parameter for each of {@code states}. */
  private static List<String> listed(String... states) {
    return given()
        .queryParam("state", (Object[]) states)
        .queryParam("size", "500")
        .get("/api/v1/rollouts")
        .then()
        .statusCode(200)
        .extract()
        .jsonPath()
        .getList("items.id", String.class);
  }

  private static void abort(String id) {
    given().post("/api/v1/rollouts/" + id + "/abort").then().statusCode(200);
  }

  private static Node node(String name, String zone) {
    return Node.ubuntuH100(name, zone, 1, Map.of("suite", "progress-api", "pool", "training"));
  }
}
