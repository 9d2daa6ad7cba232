package io.fleetwave.controlplane.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasKey;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/** Health, metrics, the OpenAPI document, Swagger UI and the dashboard answer. */
@QuarkusTest
class OperationsIT {

  @Test
  void readinessCoversKafkaAndPostgres() {
    given()
        .get("/q/health/ready")
        .then()
        .statusCode(200)
        .body("status", equalTo("UP"))
        .body("checks.name", hasItem(containsString("Reactive Messaging")))
        .body("checks.name", hasItem(containsString("Reactive PostgreSQL")));
    given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
  }

  @Test
  void metricsExposeTheProjection() {
    given()
        .get("/q/metrics")
        .then()
        .statusCode(200)
        .body(containsString("fleetwave_projection_events_projected_total"))
        .body(containsString("fleetwave_projection_events_skipped_total"))
        .body(containsString("fleetwave_projection_events_dead_lettered_total"))
        .body(containsString("fleetwave_projection_batch_size_count"))
        .body(containsString("fleetwave_projection_consumer_lag_records"))
        .body(containsString("fleetwave_projection_waiting_seconds"));
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
        .body(containsString("/api/v1/fleet/summary"));
  }
}
