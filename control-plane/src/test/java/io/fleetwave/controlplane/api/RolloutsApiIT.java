package io.fleetwave.controlplane.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.fleetwave.controlplane.fixtures.ApiReads;
import io.fleetwave.controlplane.fixtures.FleetNodes;
import io.fleetwave.controlplane.fixtures.FleetNodes.Node;
import io.fleetwave.controlplane.fixtures.NodeActions;
import io.fleetwave.events.node.HostKind;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Rollout planning and creation over a small heterogeneous fleet projected from real events, all
 * nodes labelled suite=rollout. Every test that creates rollouts aborts them again.
 */
@QuarkusTest
class RolloutsApiIT {
  private static final String DRIVER_NOW = "550.127.05";
  private static final Map<String, String> LABELS = Map.of("suite", "rollout", "pool", "training");
  private static final List<Node> FLEET =
      List.of(
          node("ro-ubu-1", HostKind.UBUNTU, "z1", "H100-80GB", 2),
          node("ro-ubu-2", HostKind.UBUNTU, "z1", "H100-80GB", 2),
          node("ro-ubu-3", HostKind.UBUNTU, "z2", "H100-80GB", 2),
          node("ro-ubu-4", HostKind.UBUNTU, "z2", "H100-80GB", 2),
          node("ro-dc-1", HostKind.UBUNTU_DRIVER_CONTAINER, "z1", "H100-80GB", 2),
          node("ro-talos-1", HostKind.TALOS, "z2", "H100-80GB", 1),
          node("ro-cos-1", HostKind.COS, "z3", "H100-80GB", 1),
          node("ro-l40s-1", HostKind.UBUNTU, "z1", "L40S", 2),
          node("ro-b200-1", HostKind.UBUNTU, "z3", "B200", 1));

  @TestHTTPResource(value = "metrics", management = true)
  String metrics;

  @BeforeEach
  void projectFleetOnce() {
    FleetNodes.publishAndAwaitOnce(FLEET);
  }

  @Test
  void migDryRunPlansWavesCanaryFirstAndExcludesNonMigGpus() {
    JsonPath plan =
        dryRun(
                spec(
                    "h100-balanced",
                    "\"selector\": \"suite=rollout\"",
                    "\"migConfig\": \"all-balanced\"",
                    "[\"1\", \"50%\", \"100%\"]",
                    "2"))
            .statusCode(200)
            .extract()
            .jsonPath();
    List<Map<String, Object>> waves = plan.getList("waves");
    assertThat(waves).hasSizeGreaterThanOrEqualTo(2);
    assertThat(plan.getBoolean("waves[0].canary")).isTrue();
    assertThat(
            plan.getList("waves[0].batches.nodes.node").stream()
                .mapToInt(n -> ((List<?>) n).size())
                .sum())
        .as("the canary wave holds one node")
        .isEqualTo(1);
    assertThat(plan.getList("waves.canary", Boolean.class).subList(1, waves.size()))
        .containsOnly(false);
    assertThat(plan.getInt("maxUnavailableNodes")).isEqualTo(2);
    List<Map<String, Object>> batches = plan.getList("waves.batches.flatten()");
    assertThat(batches).allSatisfy(b -> assertThat((List<?>) b.get("nodes")).hasSizeBetween(1, 2));

    Map<String, Map<String, Object>> planned = plannedNodes(plan);
    Map<String, Map<String, Object>> excluded = excluded(plan);
    assertThat(excluded.get("ro-l40s-1")).containsEntry("reason", "NO_MATCHING_GPU");
    assertThat(excluded.get("ro-l40s-1").get("detail").toString()).isNotBlank();
    assertThat(union(planned.keySet(), excluded.keySet()))
        .as("every targeted node is planned or excluded, exactly once")
        .containsExactlyInAnyOrderElementsOf(FLEET.stream().map(Node::name).toList());
    assertThat(plan.getInt("plannedNodes")).isEqualTo(planned.size());

    Map<String, Object> ubu = planned.get("ro-ubu-1");
    List<Map<String, Object>> changes = cast(ubu.get("gpuChanges"));
    assertThat(changes).hasSize(2);
    assertThat(changes.getFirst())
        .containsEntry("model", "H100-80GB")
        .containsEntry("fromMode", "disabled")
        .containsEntry("toMigEnabled", true);
    assertThat(cast(changes.getFirst().get("to")))
        .extracting(i -> i.get("profile"))
        .containsExactlyInAnyOrder("1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb");
    assertThat(ubu).containsKeys("resetNeeded", "vfsTouched").containsEntry("driver", null);

    List<Map<String, Object>> capacity = plan.getList("capacity");
    Map<String, Object> h100 =
        capacity.stream()
            .filter(c -> "H100-80GB".equals(c.get("gpuModel")))
            .findFirst()
            .orElseThrow();
    assertThat((int) h100.get("peakGpusUnavailable")).isBetween(1, 4);
    assertThat(cast2(h100.get("instancesAfter"))).containsKey("3g.40gb");
  }

  @Test
  void aNodeGoingToMigOnIsPlannedByARolloutToMigOffWithItsPendingSpecShown() {
    // Projected from events alone, the node never applies its spec: its MIG-on stays pending.
    Node held =
        new Node(
            "ro-held-1",
            HostKind.UBUNTU,
            "z1",
            DRIVER_NOW,
            "H100-80GB",
            1,
            Map.of("suite", "rollout-held"));
    FleetNodes.publishAndAwait(List.of(held));
    // An int, as the plan's JSON reads back.
    int generation =
        Math.toIntExact(
            NodeActions.putSpec(
                held.name(),
                """
            {"gpus": [{"index": 0, "migEnabled": true, "instances": {"1g.10gb": 7}}]}
            """));

    JsonPath plan =
        dryRun(
                spec(
                    "held-off",
                    "\"selector\": \"suite=rollout-held\"",
                    "\"migConfig\": \"all-disabled\"",
                    "[\"100%\"]",
                    "1"))
            .statusCode(200)
            .extract()
            .jsonPath();

    Map<String, Object> node = plannedNodes(plan).get(held.name());
    assertThat(node)
        .as("planned, not left out as already at target: %s", plan.prettify())
        .isNotNull();
    assertThat(cast(node.get("gpuChanges")))
        .singleElement()
        .satisfies(
            c ->
                assertThat(c)
                    .containsEntry("fromMode", "disabled")
                    .containsEntry("toMigEnabled", false));
    Map<String, Object> pending = cast2(node.get("pendingSpec"));
    assertThat(pending).containsEntry("generation", generation);
    assertThat(cast(pending.get("gpus")))
        .singleElement()
        .satisfies(g -> assertThat(g).containsEntry("migEnabled", true));
  }

  @Test
  void driverDryRunGivesOsImageContainerTagOrPackagePerNodeAndExcludesB200BelowItsMinimum() {
    JsonPath plan =
        dryRun(
                spec(
                    "driver-560",
                    "\"selector\": \"suite=rollout\"",
                    "\"driverVersion\": \"560.35.03\"",
                    "[\"1\", \"100%\"]",
                    "25%"))
            .statusCode(200)
            .extract()
            .jsonPath();
    Map<String, Map<String, Object>> planned = plannedNodes(plan);
    Map<String, Map<String, Object>> excluded = excluded(plan);
    assertThat(excluded.get("ro-b200-1")).containsEntry("reason", "DRIVER_CANNOT_SERVE");
    assertThat(excluded.get("ro-b200-1").get("detail").toString()).contains("570");

    for (String osImageNode : List.of("ro-talos-1", "ro-cos-1")) {
      Map<String, Object> driver = cast2(planned.get(osImageNode).get("driver"));
      assertThat(driver)
          .as(osImageNode)
          .containsEntry("osUpgradeNeeded", true)
          .containsEntry("fromVersion", DRIVER_NOW)
          .containsEntry("toVersion", "560.35.03");
      assertThat(cast2(driver.get("artifact"))).as(osImageNode).containsEntry("kind", "os-image");
      assertThat(cast2(driver.get("artifact")).get("description").toString())
          .contains("needs OS image with driver 560.35.03");
    }
    Map<String, Object> container =
        cast2(cast2(planned.get("ro-dc-1").get("driver")).get("artifact"));
    assertThat(container)
        .containsEntry("kind", "container-image")
        .containsEntry("tag", "560.35.03-ubuntu24.04");
    assertThat(cast2(planned.get("ro-dc-1").get("driver"))).containsEntry("osUpgradeNeeded", false);
    assertThat(cast2(cast2(planned.get("ro-ubu-1").get("driver")).get("artifact")))
        .containsEntry("kind", "host-package");
    assertThat(plan.getList("capacity")).isNotEmpty();
  }

  @Test
  void anEmptyTargetIs422AndAllNodesIsAccepted() {
    JsonPath problem =
        dryRun(spec("empty", "", "\"driverVersion\": \"580.95.05\"", "[\"100%\"]", "1"))
            .statusCode(422)
            .contentType("application/problem+json")
            .extract()
            .jsonPath();
    assertThat(problem.getList("errors.field", String.class)).contains("target");
    assertThat(problem.getString("errors.find { it.field == 'target' }.message"))
        .contains("allNodes");

    JsonPath invalid =
        dryRun(
                spec(
                    "Bad Name",
                    "\"selector\": \"suite in (rollout\"",
                    "\"migConfig\": \"no-such\"",
                    "[\"1\", \"50%\"]",
                    "1"))
            .statusCode(422)
            .extract()
            .jsonPath();
    assertThat(invalid.getList("errors.field", String.class))
        .contains("name", "target.selector", "change.migConfig", "strategy.waves[1]");

    JsonPath all =
        dryRun(
                spec(
                    "everything",
                    "\"allNodes\": true",
                    "\"driverVersion\": \"580.95.05\"",
                    "[\"1\", \"100%\"]",
                    "10%"))
            .statusCode(200)
            .extract()
            .jsonPath();
    assertThat(union(plannedNodes(all).keySet(), excluded(all).keySet()))
        .containsAll(FLEET.stream().map(Node::name).toList());
  }

  @Test
  void theCreatedRolloutStoresExactlyThePlanTheDryRunShowed() {
    String spec =
        spec(
            "same-plan",
            "\"nodes\": [\"ro-ubu-1\", \"ro-ubu-2\", \"ro-dc-1\"]",
            "\"migConfig\": \"all-balanced\"",
            "[\"1\", \"100%\"]",
            "1");
    Map<String, Object> shown = dryRun(spec).statusCode(200).extract().jsonPath().getMap("$");
    JsonPath created = create(spec).statusCode(201).extract().jsonPath();
    String id = created.getString("id");
    try {
      assertThat(created.getString("state")).isEqualTo("created");
      assertThat(created.getMap("plan")).isEqualTo(shown);
      JsonPath stored = ApiReads.ok("/api/v1/rollouts/" + id);
      assertThat(stored.getMap("plan")).isEqualTo(shown);
      assertThat(stored.getString("state")).isIn("created", "running");
      assertThat(stored.getString("spec.change.migConfig")).isEqualTo("all-balanced");
      assertThat(plannedNodes(stored.setRootPath("plan")).keySet())
          .containsExactlyInAnyOrder("ro-ubu-1", "ro-ubu-2", "ro-dc-1");
      List<Map<String, Object>> listed = ApiReads.ok("/api/v1/rollouts?size=500").getList("items");
      assertThat(listed)
          .anySatisfy(
              r -> {
                assertThat(r.get("id")).isEqualTo(id);
                assertThat(r.get("plannedNodes")).isEqualTo(3);
                assertThat(r.get("migConfig")).isEqualTo("all-balanced");
              });
    } finally {
      abort(id).statusCode(200);
    }
  }

  @Test
  void anOverlappingRolloutIs409NamingNodesAndRolloutUntilTheFirstIsAborted() {
    String first =
        spec(
            "first",
            "\"nodes\": [\"ro-ubu-3\", \"ro-ubu-4\", \"ro-talos-1\"]",
            "\"migConfig\": \"all-balanced\"",
            "[\"1\", \"100%\"]",
            "1");
    String second =
        spec(
            "second",
            "\"nodes\": [\"ro-ubu-4\", \"ro-talos-1\", \"ro-cos-1\"]",
            "\"migConfig\": \"all-balanced\"",
            "[\"1\", \"100%\"]",
            "1");
    String firstId = create(first).statusCode(201).extract().jsonPath().getString("id");
    String secondId = null;
    try {
      JsonPath conflict =
          create(second)
              .statusCode(409)
              .contentType("application/problem+json")
              .extract()
              .jsonPath();
      assertThat(conflict.getList("nodes", String.class)).containsExactly("ro-talos-1", "ro-ubu-4");
      assertThat(conflict.getInt("nodeCount")).isEqualTo(2);
      assertThat(conflict.getString("rollout.id")).isEqualTo(firstId);
      assertThat(conflict.getString("rollout.name")).isEqualTo("first");
      assertThat(conflict.getString("detail")).contains("ro-ubu-4").contains(firstId);
      // A dry run is no claim on nodes: it still plans.
      dryRun(second).statusCode(200);

      abort(firstId).statusCode(200).body("state", equalTo("aborted"));
      abort(firstId).statusCode(409).body("detail", containsString("aborted"));
      given()
          .get("/api/v1/rollouts/" + firstId)
          .then()
          .statusCode(200)
          .body("state", equalTo("aborted"));

      secondId = create(second).statusCode(201).extract().jsonPath().getString("id");
    } finally {
      if (secondId != null) {
        abort(secondId).statusCode(200);
      }
      given().post("/api/v1/rollouts/" + firstId + "/abort");
    }
  }

  @Test
  void anActiveRolloutIsMeasuredUntilItEnds() {
    String spec =
        spec(
            "measured",
            "\"nodes\": [\"ro-ubu-3\", \"ro-l40s-1\"]",
            "\"migConfig\": \"all-balanced\"",
            "[\"100%\"]",
            "1");
    String id = create(spec).statusCode(201).extract().jsonPath().getString("id");
    String series = "{name=\"measured\",rollout=\"" + id + "\"";
    try {
      // No agent answers in this fleet: the planned node is started and stays in flight.
      await("the rollout's gauges")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                String scraped = given().get(metrics).then().statusCode(200).extract().asString();
                return scraped.contains(
                        "fleetwave_rollout_nodes"
                            + series.replace("}", "")
                            + ",state=\"in-flight\"} 1.0")
                    && scraped.contains("fleetwave_rollout_wave" + series + "} 1.0")
                    && scraped.contains("fleetwave_rollout_nodes_overdue" + series + "} 0.0")
                    && scraped.contains("fleetwave_rollouts_active ");
              });
      given()
          .get(metrics)
          .then()
          .body(
              containsString(
                  "fleetwave_rollout_paused{by=\"none\"," + series.substring(1) + "} 0.0"))
          .body(containsString("fleetwave_fleet_nodes_not_converged "))
          .body(containsString("fleetwave_fleet_nodes_silent "))
          .body(containsString("fleetwave_projection_staleness_seconds "));
    } finally {
      abort(id).statusCode(200);
    }
    await("the aborted rollout's series are gone")
        .atMost(Duration.ofSeconds(30))
        .until(() -> !given().get(metrics).then().extract().asString().contains(id));
  }

  @Test
  void anUnknownRolloutIs404Problem() {
    given()
        .get("/api/v1/rollouts/00000000-0000-0000-0000-000000000000")
        .then()
        .statusCode(404)
        .contentType("application/problem+json")
        .body("type", containsString("unknown-rollout"));
    given().get("/api/v1/rollouts/not-a-uuid").then().statusCode(404);
    abort("00000000-0000-0000-0000-000000000000").statusCode(404);
    given()
        .accept("text/event-stream")
        .get("/api/v1/rollouts/00000000-0000-0000-0000-000000000000/stream")
        .then()
        .statusCode(404)
        .contentType("application/problem+json")
        .body("type", containsString("unknown-rollout"));
  }

  @Test
  void aRolloutThatChangesNoNodeIs422NamingWhyEachNodeIsLeftOutAndIsNotStored() {
    // Before this was refused it was stored as 'created' and never left that state: the engine
    // cannot log a rollout without a wave, and its every round failed on it.
    String spec =
        spec(
            "nothing-to-do",
            "\"nodes\": [\"ro-l40s-1\"]",
            "\"migConfig\": \"all-balanced\"",
            "[\"1\", \"100%\"]",
            "1");
    JsonPath plan = dryRun(spec).statusCode(200).extract().jsonPath();
    assertThat(plan.getInt("plannedNodes")).isZero();

    JsonPath problem =
        create(spec).statusCode(422).contentType("application/problem+json").extract().jsonPath();
    assertThat(problem.getString("detail"))
        .startsWith("nothing to roll out; the plan changes no node")
        .contains("ro-l40s-1 (NO_MATCHING_GPU: ");
    assertThat(problem.getString("errors[0].field")).isEqualTo("target");
    assertThat(problem.getList("excluded.node", String.class)).containsExactly("ro-l40s-1");
    assertThat(problem.getList("excluded.reason", String.class)).containsExactly("NO_MATCHING_GPU");
    assertThat(given().get("/api/v1/rollouts").then().statusCode(200).extract().asString())
        .doesNotContain("nothing-to-do");
  }

  @Test
  void aDriverRolloutWithoutADriverExecutorIs422SayingHowToConfigureOne() {
    String spec =
        spec(
            "no-executor",
            "\"nodes\": [\"ro-ubu-1\"]",
            "\"driverVersion\": \"560.35.03\"",
            "[\"100%\"]",
            "1");
    dryRun(spec).statusCode(200);
    create(spec)
        .statusCode(422)
        .body("detail", containsString("fleetwave.rollout.driver-executor"))
        .body("errors[0].field", equalTo("change.driverVersion"));
  }

  @Test
  void theOpenApiDocumentDescribesTheRolloutRequestAndItsActions() {
    String openapi =
        given().get("/q/openapi?format=json").then().statusCode(200).extract().asString();
    assertThat(openapi)
        .contains(
            "/api/v1/rollouts", "/api/v1/rollouts/{id}/{action}", "/api/v1/mig-configs/{name}")
        .contains("/api/v1/rollouts/{id}/stream", "/api/v1/rollouts/{id}/events")
        .contains("RolloutSpec", "RolloutPlan", "maxZonesInFlight", "allNodes")
        .contains("The engine runs it at once");
  }

  private static Node node(String name, HostKind kind, String zone, String model, int gpus) {
    return new Node(name, kind, zone, DRIVER_NOW, model, gpus, LABELS);
  }

  private static String spec(
      String name, String target, String change, String waves, String maxUnavailable) {
    return """
        {"name": "%s",
         "target": {%s},
         "change": {%s},
         "strategy": {"waves": %s, "maxUnavailable": "%s", "maxZonesInFlight": 2,
                      "soakSeconds": 0,
                      "failureThreshold": {"perWave": "20%%", "total": "5%%", "action": "pause"},
                      "manualPromotion": false, "nodeTimeoutSeconds": 600}}
        """
        .formatted(name, target, change, waves, maxUnavailable);
  }

  private static io.restassured.response.ValidatableResponse dryRun(String spec) {
    return given()
        .contentType("application/json")
        .queryParam("dryRun", "true")
        .body(spec)
        .post("/api/v1/rollouts")
        .then();
  }

  private static io.restassured.response.ValidatableResponse create(String spec) {
    return given().contentType("application/json").body(spec).post("/api/v1/rollouts").then();
  }

  private static io.restassured.response.ValidatableResponse abort(String id) {
    return given().post("/api/v1/rollouts/" + id + "/abort").then();
  }

  private static Map<String, Map<String, Object>> plannedNodes(JsonPath plan) {
    List<Map<String, Object>> nodes = plan.getList("waves.batches.flatten().nodes.flatten()");
    assertThat(nodes.stream().map(n -> n.get("node")).distinct().count())
        .as("no node in two waves")
        .isEqualTo(nodes.size());
    return nodes.stream().collect(Collectors.toMap(n -> (String) n.get("node"), n -> n));
  }

  private static Map<String, Map<String, Object>> excluded(JsonPath plan) {
    List<Map<String, Object>> nodes = plan.getList("excluded");
    return nodes.stream().collect(Collectors.toMap(n -> (String) n.get("node"), n -> n));
  }

  private static List<String> union(
      java.util.Collection<String> a, java.util.Collection<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> cast(Object list) {
    return (List<Map<String, Object>>) list;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> cast2(Object map) {
    return (Map<String, Object>) map;
  }
}
