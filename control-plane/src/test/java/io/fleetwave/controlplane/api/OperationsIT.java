package io.fleetwave.controlplane.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasKey;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * Health and metrics answer on the management interface (and not on the API's port), the OpenAPI
 * document, Swagger UI (dev and test mode) and the dashboard on the API's port.
 */
@QuarkusTest
class OperationsIT {
  /** Readiness, liveness and metrics on the management interface (its own port, root /q). */
  @TestHTTPResource(value = "health/ready", management = true)
  String ready;

  @TestHTTPResource(value = "health/live", management = true)
  String live;

  @TestHTTPResource(value = "metrics", management = true)
  String metrics;

  @Test
  void healthAndMetricsAreNotOnTheApiPort() {
    given().get("/q/health/ready").then().statusCode(404);
    given().get("/q/metrics").then().statusCode(404);
  }

  @Test
  void readinessCoversKafkaAndPostgres() {
    given()
        .get(ready)
        .then()
        .statusCode(200)
        .body("status", equalTo("UP"))
        .body("checks.name", hasItem(containsString("Reactive Messaging")))
        .body("checks.name", hasItem(containsString("Reactive PostgreSQL")));
    given().get(live).then().statusCode(200).body("status", equalTo("UP"));
  }

  @Test
  void metricsExposeTheProjection() {
    // The gauges watch their beans through weak references: a collection first makes a gauge that
    // watches anything but this application's live bean (a stopped start's) drop out here.
    System.gc();
    given()
        .get(metrics)
        .then()
        .statusCode(200)
        .body(containsString("fleetwave_projection_events_projected_total"))
        .body(containsString("fleetwave_projection_events_skipped_total"))
        .body(containsString("fleetwave_projection_events_dead_lettered_total"))
        .body(containsString("fleetwave_projection_batch_size_count"))
        .body(containsString("fleetwave_projection_consumer_lag_records"))
        .body(containsString("fleetwave_projection_waiting_seconds"))
        .body(containsString("fleetwave_rollout_engine_leading"))
        .body(containsString("fleetwave_rollout_engine_term"))
        .body(containsString("fleetwave_fleet_view_ready"))
        .body(containsString("fleetwave_fleet_view_repaired_total"));
  }

  @Test
  void openApiListsTheEndpoints() {
    given()
        .accept("application/json")
        .get("/q/openapi?format=json")
        .then()
        .statusCode(200)
        .body("paths", hasKey("/api/v1/nodes"))
        .body("paths", hasKey("/api/v1/nodes/{name}"))
        .body("paths", hasKey("/api/v1/nodes/{name}/events"))
        .body("paths", hasKey("/api/v1/fleet/summary"))
        .body("paths", hasKey("/api/v1/admin/projection/rebuild"));
    given().get("/q/swagger-ui/").then().statusCode(200);
  }

  @Test
  void servesTheDashboard() {
    given()
        .get("/")
        .then()
        .statusCode(200)
        .contentType(containsString("text/html"))
        .body(containsString("Fleetwave"))
        .body(containsString("fleet.js"));
    given().get("/fleet.js").then().statusCode(200).body(containsString("/api/v1/fleet/summary"));
    for (String page : new String[] {"/rollout.html", "/plan.html", "/node.html"}) {
      given()
          .get(page)
          .then()
          .statusCode(200)
          .contentType(containsString("text/html"))
          .body(containsString("app.js"));
    }
  }
}
