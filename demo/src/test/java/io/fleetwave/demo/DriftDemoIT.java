package io.fleetwave.demo;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;

import io.fleetwave.controlplane.fixtures.DriftListing;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.demo.fixtures.DrainFleetProfile;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The key end-to-end check of issue 35's drift: a change made by hand on a simulated node (the
 * simulator's disturbance API, as nvidia-smi would) shows up in GET /api/v1/drift as changed
 * outside Fleetwave, with what it was and what it is, within one heartbeat of the demo fleet
 * ({@link DrainFleetProfile}: 1 s), and in the node's changes with its cause.
 */
@QuarkusTest
@TestProfile(DrainFleetProfile.class)
class DriftDemoIT {
  private static final String NODE = "sim-vgpu-0";
  private static final Duration HEARTBEAT = Duration.ofSeconds(1);

  private static String migMode() {
    return given()
        .get("/api/v1/nodes/{name}", NODE)
        .then()
        .extract()
        .jsonPath()
        .getString("gpus[0].migMode");
  }

  private static List<Map<String, Object>> driftedAspects() {
    return DriftListing.changedOutside(NODE);
  }

  @Test
  void aChangeByHandOnASimulatedNodeShowsAsDriftWithBeforeAndAfterWithinAHeartbeat() {
    await("the simulated node and its GPUs projected")
        .atMost(Duration.ofSeconds(30))
        .until(() -> ProjectionRows.position(NODE) != null && "disabled".equals(migMode()));
    assertThat(driftedAspects()).noneMatch(a -> "mig-mode".equals(a.get("aspect")));

    Instant changed = Instant.now();
    given()
        .contentType(ContentType.JSON)
        .body("{\"gpu\": 0, \"migMode\": \"enabled\"}")
        .post("/api/v1/simulator/nodes/{name}/by-hand", NODE)
        .then()
        .statusCode(200);

    await("the hand change shown as drift")
        .atMost(HEARTBEAT)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> driftedAspects().stream().anyMatch(a -> "mig-mode".equals(a.get("aspect"))));
    Map<String, Object> mig =
        driftedAspects().stream()
            .filter(a -> "mig-mode".equals(a.get("aspect")))
            .findFirst()
            .orElseThrow();
    assertThat(mig)
        .containsEntry("gpu", 0)
        .containsEntry("expected", "disabled")
        .containsEntry("observed", "enabled");
    Instant since = Instant.parse((String) mig.get("since"));
    assertThat(Duration.between(changed, since)).isLessThan(HEARTBEAT);

    JsonPath changes =
        given()
            .queryParam("since", changed.minusSeconds(1).toString())
            .get("/api/v1/nodes/{name}/changes", NODE)
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    assertThat(changes.getList("items.findAll { it.aspect == 'mig-mode' }.cause", String.class))
        .containsExactly("outside");
    assertThat(changes.getString("items.find { it.aspect == 'mig-mode' }.before"))
        .isEqualTo("disabled");

    // Turned back by hand as it was: no drift left (and the node as the other tests expect it).
    given()
        .contentType(ContentType.JSON)
        .body("{\"gpu\": 0, \"migMode\": \"disabled\"}")
        .post("/api/v1/simulator/nodes/{name}/by-hand", NODE)
        .then()
        .statusCode(200);
    await("the drift gone once the GPU is back as it was")
        .atMost(Duration.ofSeconds(10))
        .until(() -> driftedAspects().stream().noneMatch(a -> "mig-mode".equals(a.get("aspect"))));
  }

  @Test
  void aHandChangeIsRefusedWithTheFieldThatIsWrong() {
    given()
        .contentType(ContentType.JSON)
        .body("{\"gpu\": 0, \"migMode\": \"sideways\"}")
        .post("/api/v1/simulator/nodes/{name}/by-hand", NODE)
        .then()
        .statusCode(422)
        .body("errors[0].field", org.hamcrest.Matchers.equalTo("migMode"));
    given()
        .contentType(ContentType.JSON)
        .body("{\"gpu\": 0, \"migMode\": \"enabled\", \"health\": \"failed\"}")
        .post("/api/v1/simulator/nodes/{name}/by-hand", NODE)
        .then()
        .statusCode(422)
        .body("detail", containsString("not both"));
  }
}
