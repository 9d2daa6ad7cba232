package io.fleetwave.demo;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.rollout.driver.DriverChangeExecutor;
import io.fleetwave.controlplane.rollout.driver.DriverChangeRequest;
import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.demo.fixtures.DrainFleetProfile;
import io.fleetwave.events.node.HostKind;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The simulator endpoints in demo mode, on the one simulated vGPU host of {@link
 * DrainFleetProfile}'s fleet (its other nodes are RolloutDrainIT's).
 */
@QuarkusTest
@TestProfile(DrainFleetProfile.class)
class SimulatorDemoIT {
  private static final String NODE = "sim-vgpu-0";

  @Inject DriverChangeExecutor drivers;

  /**
   * Demo mode changes drivers through the simulated node by default: the node reboots into the new
   * driver and the projection shows it from the new agent run.
   */
  @Test
  void aDriverChangeInDemoModeReachesTheSimulatedNodeAndTheProjection() {
    assertThat(drivers.name()).isEqualTo("simulator");
    await("the simulated node projected")
        .atMost(Duration.ofSeconds(30))
        .until(() -> ProjectionRows.position(NODE) != null);
    long epoch = ProjectionRows.position(NODE)[0];

    drivers
        .request(
            new DriverChangeRequest(
                "demo:" + NODE + ":1",
                UUID.randomUUID(),
                NODE,
                HostKind.VGPU_HOST,
                "580.95.05",
                new DriverArtifact.HostPackage("580.105.08", "nvidia-vgpu-kvm", "580.105.08")))
        .await()
        .atMost(Duration.ofSeconds(10));
    await("the new driver projected from a new agent run")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                ProjectionRows.position(NODE)[0] > epoch
                    && "580.105.08"
                        .equals(
                            given()
                                .get("/api/v1/nodes/{name}", NODE)
                                .then()
                                .extract()
                                .jsonPath()
                                .getString("driverVersion")));
  }

  @Test
  void processesAndHandlesReachTheSimulatedGpu() {
    long pid =
        given()
            .contentType(ContentType.JSON)
            .body("{\"gpu\": 0, \"name\": \"python3\"}")
            .post("/api/v1/simulator/nodes/{name}/start-process", NODE)
            .then()
            .statusCode(200)
            .body("action", equalTo("start-process"))
            .extract()
            .jsonPath()
            .getLong("pid");
    post("stop-process", "{\"gpu\": 0, \"pid\": " + pid + "}").statusCode(200);
    post("stop-process", "{\"gpu\": 0, \"pid\": " + pid + "}")
        .statusCode(422)
        .body("detail", containsString("no such process"));

    post("hold-handle", "{\"gpu\": 0, \"holder\": \"nvidia-persistenced\"}").statusCode(200);
    post("release-handle", "{\"gpu\": 0, \"holder\": \"nv-hostengine\"}")
        .statusCode(422)
        .body("detail", containsString("nv-hostengine does not hold this GPU"));
    post("release-handle", "{\"gpu\": 0, \"holder\": \"nvidia-persistenced\"}").statusCode(200);
  }

  @Test
  void badBodiesAndUnknownNodesAreProblems() {
    post("start-process", "{}")
        .statusCode(422)
        .contentType("application/problem+json")
        .body("errors.field", hasItem("gpu"));
    post("hold-handle", "{\"gpu\": 0}").statusCode(422).body("errors.field", hasItem("holder"));
    post("start-process", "{not json").statusCode(400);
    given()
        .post("/api/v1/simulator/nodes/{name}/reboot", "nope")
        .then()
        .statusCode(404)
        .body("detail", equalTo("node nope is not simulated"));
  }

  @Test
  void aRebootOrACrashAndRestartStartsANewAgentRun() {
    await("the simulated node projected")
        .atMost(Duration.ofSeconds(30))
        .until(() -> ProjectionRows.position(NODE) != null);
    long epoch = ProjectionRows.position(NODE)[0];

    given().post("/api/v1/simulator/nodes/{name}/reboot", NODE).then().statusCode(200);
    await("a new agent run after the reboot")
        .atMost(Duration.ofSeconds(30))
        .until(() -> ProjectionRows.position(NODE)[0] > epoch);
    long afterReboot = ProjectionRows.position(NODE)[0];

    given().post("/api/v1/simulator/nodes/{name}/crash-agent", NODE).then().statusCode(200);
    given().post("/api/v1/simulator/nodes/{name}/restart-agent", NODE).then().statusCode(200);
    await("a new agent run after the restart")
        .atMost(Duration.ofSeconds(30))
        .until(() -> ProjectionRows.position(NODE)[0] > afterReboot);
    assertThat(ProjectionRows.position(NODE)[0]).isGreaterThan(epoch);
  }

  /**
   * Issue 4 end to end: a spec PUT through the API is signed, read by the simulated agent from the
   * compacted topic and applied in hardware order; after a simulated reboot, which loses MIG mode,
   * VFs, instances and vGPU types, the agent restores it with no action from anyone.
   */
  @Test
  void aSpecAppliedThroughTheApiIsRestoredAfterARebootHandsOff() {
    await("the simulated node projected")
        .atMost(Duration.ofSeconds(30))
        .until(() -> ProjectionRows.position(NODE) != null);
    given()
        .contentType(ContentType.JSON)
        .body(
            """
            {"gpus": [{"index": 0, "migEnabled": true, "instances": {"3g.40gb": 2}, "vfs": 4,
                       "vgpuTypes": {"0": "H100-3-40C", "1": "H100-3-40C"}}]}
            """)
        .put("/api/v1/nodes/{name}/spec", NODE)
        .then()
        .statusCode(202);
    awaitConvergedWithTwoInstances("the spec applied");
    long epochBefore = ProjectionRows.position(NODE)[0];

    given().post("/api/v1/simulator/nodes/{name}/reboot", NODE).then().statusCode(200);
    await("a new agent run after the reboot")
        .atMost(Duration.ofSeconds(30))
        .until(() -> ProjectionRows.position(NODE)[0] > epochBefore);
    awaitConvergedWithTwoInstances("the spec restored after the reboot");

    long epochAfter = ProjectionRows.position(NODE)[0];
    java.util.List<String> kinds = stepsSucceededIn(epochAfter);
    assertThat(kinds.stream().filter(k -> !k.equals("hold-gate")).distinct().toList())
        .containsExactly(
            "set-mig-mode", "enable-vfs", "create-instance", "set-vgpu-type", "release-gate");
    assertThat(kinds.stream().filter(k -> k.equals("create-instance")).count()).isEqualTo(2);
    assertThat(kinds.getLast()).isEqualTo("release-gate");
  }

  private static void awaitConvergedWithTwoInstances(String what) {
    await(what)
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              var spec = given().get("/api/v1/nodes/{name}/spec", NODE).then().extract().jsonPath();
              var node = given().get("/api/v1/nodes/{name}", NODE).then().extract().jsonPath();
              return spec.getBoolean("converged")
                  && node.getList("gpus[0].instances").size() == 2
                  && node.getInt("gpus[0].vfsEnabled") == 4;
            });
  }

  /** The kinds of the steps that succeeded in one agent run, oldest first. */
  private static java.util.List<String> stepsSucceededIn(long epoch) {
    java.util.List<java.util.Map<String, Object>> events =
        given()
            .queryParam("size", 500)
            .get("/api/v1/nodes/{name}/events", NODE)
            .then()
            .statusCode(200)
            .extract()
            .jsonPath()
            .getList("items");
    java.util.List<String> kinds = new java.util.ArrayList<>();
    for (var event : events.reversed()) {
      if (((Number) event.get("epoch")).longValue() == epoch
          && ((String) event.get("type")).contains("step-succeeded")) {
        @SuppressWarnings("unchecked")
        var step =
            (java.util.Map<String, Object>)
                ((java.util.Map<String, Object>) event.get("payload")).get("step");
        kinds.add((String) step.get("kind"));
      }
    }
    return kinds;
  }

  private static io.restassured.response.ValidatableResponse post(String action, String body) {
    return given()
        .contentType(ContentType.JSON)
        .body(body)
        .post("/api/v1/simulator/nodes/{name}/" + action, NODE)
        .then();
  }
}
