package io.fleetwave.controlplane.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;

import io.fleetwave.controlplane.fixtures.ApiReads;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ValidatableResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The REST API over a small projected fleet, all nodes labelled suite=api. */
@QuarkusTest
class NodesApiIT {
  private static final String A = "api-a-ubuntu";
  private static final String B = "api-b-talos";
  private static final String C = "api-c-cos";
  private static final String D = "api-d-vgpu";

  /** The summary before this class published its fleet; set once, by the first test to run. */
  private static JsonPath summaryBefore;

  /** Once per class, but in a test's context: RestAssured is pointed at Quarkus only then. */
  @BeforeEach
  void projectFleetOnce() {
    if (summaryBefore != null) {
      return;
    }
    summaryBefore = summary();
    try (TopicClient topic = new TopicClient()) {
      publish(
          topic,
          A,
          HostKind.UBUNTU,
          Map.of("suite", "api", "pool", "training", "tier", "gold"),
          Events.H100,
          2,
          MigMode.ENABLED);
      publish(
          topic,
          B,
          HostKind.TALOS,
          Map.of("suite", "api", "pool", "inference"),
          Events.L4,
          1,
          MigMode.DISABLED);
      publish(topic, C, HostKind.COS, Map.of("suite", "api"), Events.H200, 4, MigMode.DISABLED);
      publish(
          topic,
          D,
          HostKind.VGPU_HOST,
          Map.of("suite", "api", "pool", "training"),
          Events.H100,
          1,
          MigMode.DISABLED);
    }
    await("the api-* nodes projected")
        .atMost(Duration.ofSeconds(30))
        .until(() -> List.of(A, B, C, D).stream().allMatch(n -> ProjectionRows.isAt(n, 1, 2)));
  }

  private static void publish(
      TopicClient topic,
      String node,
      HostKind kind,
      Map<String, String> labels,
      String model,
      int gpus,
      MigMode mode) {
    topic.publish(Events.envelope(node, 1, 0, Events.registered(node, kind, "580.95.05", labels)));
    topic.publish(Events.envelope(node, 1, 1, Events.inventory(model, gpus, mode)));
    topic.publish(Events.envelope(node, 1, 2, Events.heartbeat(10)));
  }

  /** Names on the first page for query parameters given as name, value, name, value... */
  private static List<String> names(String... params) {
    return listing(params).getList("items.name");
  }

  /** The first page's answer (200) for query parameters given as name, value, name, value... */
  private static ValidatableResponse nodesPage(String... params) {
    return given().queryParams(params(params)).get("/api/v1/nodes").then().statusCode(200);
  }

  private static Map<String, String> params(String... params) {
    Map<String, String> map = new java.util.LinkedHashMap<>();
    for (int i = 0; i < params.length; i += 2) {
      map.put(params[i], params[i + 1]);
    }
    return map;
  }

  @Test
  void filtersByHostKindGpuModelAndLabelSelector() {
    assertThat(names("selector", "suite=api")).containsExactly(A, B, C, D);
    assertThat(names("selector", "suite=api", "hostKind", "talos")).containsExactly(B);
    assertThat(names("selector", "suite=api", "hostKind", "vgpu-host")).containsExactly(D);
    assertThat(names("selector", "suite=api", "gpuModel", "0x233010de")).containsExactly(A, D);
    assertThat(names("selector", "suite=api", "gpuModel", Events.L4)).containsExactly(B);
    assertThat(names("selector", "suite=api,pool in (training)")).containsExactly(A, D);
    assertThat(names("selector", "suite=api,pool notin (training)")).containsExactly(B, C);
    assertThat(names("selector", "suite=api,!pool")).containsExactly(C);
    assertThat(names("selector", "suite=api,pool")).containsExactly(A, B, D);
    assertThat(names("selector", "suite==api,tier!=gold")).containsExactly(B, C, D);
    assertThat(names("selector", "suite=api", "hostKind", "ubuntu", "gpuModel", Events.H200))
        .isEmpty();
  }

  @Test
  void pagesWithATotal() {
    nodesPage("selector", "suite=api", "size", "3", "page", "0")
        .body("items.name", contains(A, B, C))
        .body("total", equalTo(4))
        .body("page", equalTo(0))
        .body("size", equalTo(3));
    nodesPage("selector", "suite=api", "size", "3", "page", "1")
        .body("items.name", contains(D))
        .body("total", equalTo(4));
    nodesPage("selector", "suite=api", "size", "3", "page", "2")
        .body("items.size()", equalTo(0))
        .body("total", equalTo(4));
  }

  @Test
  void showsTheFactsAndGpusOfANode() {
    ApiReads.answer("/api/v1/nodes/" + A)
        .body("name", equalTo(A))
        .body("hostKind", equalTo("ubuntu"))
        .body("osId", equalTo("ubuntu"))
        .body("osVersion", equalTo("24.04"))
        .body("kernel", equalTo("6.8.0-85-generic"))
        .body("readOnlyRoot", equalTo(false))
        .body("systemd", equalTo(true))
        .body("driverRoot", equalTo("/"))
        .body("deviceRoot", equalTo("/"))
        .body("driverProvider", equalTo("host-package"))
        .body("driverVersion", equalTo("580.95.05"))
        .body("zone", equalTo("zone-a"))
        .body("labels.tier", equalTo("gold"))
        .body("lastSeen", equalTo(Events.time(1, 2).toString()))
        .body("gpus.index", contains(0, 1))
        .body("gpus[1].uuid", equalTo("GPU-" + Events.H100 + "-1"))
        .body("gpus[1].pciBusId", equalTo("00000000:19:00.0"))
        .body("gpus[0].pciDeviceId", equalTo(Events.H100))
        .body("gpus[0].product", equalTo("NVIDIA H100 80GB HBM3"))
        .body("gpus[0].memoryMiB", equalTo(81559))
        .body("gpus[0].migCapable", equalTo(true))
        .body("gpus[0].migMode", equalTo("enabled"))
        .body("gpus[0].migModePending", equalTo("enabled"))
        .body("gpus[0].instances.profile", contains("3g.40gb", "3g.40gb"))
        .body("gpus[0].instances[1].placement.start", equalTo(4))
        .body("gpus[0].instances[1].placement.size", equalTo(4))
        .body("gpus[0].vfsTotal", equalTo(0))
        .body("gpus[0].vfsEnabled", equalTo(0))
        .body("gpus[0].health", equalTo("healthy"));
    ApiReads.answer("/api/v1/nodes/" + B)
        .body("hostKind", equalTo("talos"))
        .body("readOnlyRoot", equalTo(true))
        .body("systemd", equalTo(false))
        .body("driverRoot", equalTo("/usr/local"))
        .body("driverProvider", equalTo("os-image"))
        .body("reasons.driverRoot", containsString("/usr/local"))
        .body("gpus[0].migCapable", equalTo(false))
        .body("gpus[0].migMode", equalTo("unsupported"))
        .body("gpus[0].instances.size()", equalTo(0));
    ApiReads.answer("/api/v1/nodes/" + C)
        .body("driverRoot", equalTo("/home/kubernetes/bin/nvidia"))
        .body("gpus.size()", equalTo(4));
  }

  @Test
  @SuppressWarnings("unchecked") // JSON objects read back as maps
  void listsNodesBrieflyWithTheSameFactsAndTheirGpusCountedByModel() {
    JsonPath full = listing("selector", "suite=api");
    JsonPath brief = listing("selector", "suite=api", "view", "brief");

    assertThat(brief.getList("items.name", String.class)).containsExactly(A, B, C, D);
    assertThat(brief.getInt("total")).isEqualTo(4);
    assertThat(listing("selector", "suite=api", "view", "full").getList("items", Map.class))
        .as("view=full is the default")
        .isEqualTo(full.getList("items", Map.class));
    for (int i = 0; i < 4; i++) {
      Map<String, Object> fullNode = new java.util.HashMap<>(full.getMap("items[" + i + "]"));
      Map<String, Object> briefNode = new java.util.HashMap<>(brief.getMap("items[" + i + "]"));
      assertThat(fullNode).doesNotContainKey("gpuModels");
      assertThat(briefNode).doesNotContainKey("gpus");
      List<Map<String, Object>> gpus = (List<Map<String, Object>>) fullNode.remove("gpus");
      List<Map<String, Object>> models = (List<Map<String, Object>>) briefNode.remove("gpuModels");
      assertThat(briefNode).as("the facts of " + fullNode.get("name")).isEqualTo(fullNode);
      assertThat(models).as("the GPUs of " + fullNode.get("name")).isEqualTo(counted(gpus));
    }
    assertThat(brief.getList("items[0].gpuModels", Map.class))
        .containsExactly(
            Map.of(
                "pciDeviceId", Events.H100,
                "product", "NVIDIA H100 80GB HBM3",
                "gpus", 2,
                "migEnabled", 2,
                "notHealthy", 0));
  }

  /** The full listing's GPUs counted by model, in order of first appearance: the oracle. */
  private static List<Map<String, Object>> counted(List<Map<String, Object>> gpus) {
    Map<String, Map<String, Object>> models = new java.util.LinkedHashMap<>();
    for (Map<String, Object> gpu : gpus) {
      Map<String, Object> model =
          models.computeIfAbsent(
              (String) gpu.get("pciDeviceId"),
              id ->
                  new java.util.HashMap<>(
                      Map.of(
                          "pciDeviceId", id,
                          "product", gpu.get("product"),
                          "gpus", 0,
                          "migEnabled", 0,
                          "notHealthy", 0)));
      model.merge("gpus", 1, NodesApiIT::sum);
      model.merge("migEnabled", "enabled".equals(gpu.get("migMode")) ? 1 : 0, NodesApiIT::sum);
      model.merge("notHealthy", "healthy".equals(gpu.get("health")) ? 0 : 1, NodesApiIT::sum);
    }
    return List.copyOf(models.values());
  }

  private static Object sum(Object a, Object b) {
    return (Integer) a + (Integer) b;
  }

  private static JsonPath listing(String... params) {
    return nodesPage(params).extract().jsonPath();
  }

  @Test
  void listsANodesChangesOfStateNewestFirstWithoutItsHeartbeats() {
    ApiReads.answer("/api/v1/nodes/" + A + "/events")
        .body("items.seq", contains(1, 0))
        .body(
            "items.type",
            contains(
                "io.fleetwave.node.gpu-inventory-reported.v1", "io.fleetwave.node.registered.v1"))
        .body("items[1].payload.hostKind", equalTo("ubuntu"))
        .body("total", equalTo(2));
    ApiReads.answer("/api/v1/nodes/" + A + "/events?size=1&page=1")
        .body("items.seq", contains(0))
        .body("total", equalTo(2));
  }

  @Test
  void countsTheFleet() {
    // The summary may be up to fleetwave.api.summary-max-age old: wait for one counted after the
    // fleet was projected.
    await("the summary counts the api-* nodes")
        .atMost(Duration.ofSeconds(10))
        .until(() -> delta(summary(), "totalGpus") == 8);
    JsonPath after = summary();
    assertThat(delta(after, "totalNodes")).isEqualTo(4);
    assertThat(delta(after, "totalGpus")).isEqualTo(8);
    for (String kind : List.of("ubuntu", "talos", "cos", "vgpu-host")) {
      assertThat(delta(after, "hostKinds.'" + kind + "'")).as(kind).isEqualTo(1);
    }
    assertThat(delta(after, "migModes.enabled")).isEqualTo(2);
    assertThat(delta(after, "migModes.disabled")).isEqualTo(5);
    assertThat(delta(after, "migModes.unsupported")).isEqualTo(1);
    assertThat(delta(after, "health.healthy")).isEqualTo(8);
    assertThat(modelDelta(after, Events.H100, "gpus")).isEqualTo(3);
    assertThat(modelDelta(after, Events.H100, "nodes")).isEqualTo(2);
    assertThat(modelDelta(after, Events.H200, "gpus")).isEqualTo(4);
    assertThat(modelDelta(after, Events.L4, "gpus")).isEqualTo(1);
    assertThat(after.getString("gpuModels.find { it.pciDeviceId == '" + Events.L4 + "' }.product"))
        .isEqualTo("NVIDIA L4");
  }

  @Test
  void answersBadRequestsWithSpecificProblems() {
    problem("/api/v1/nodes?size=0", 400, "bad-paging", "'size' must be between 1 and 500, got '0'");
    problem("/api/v1/nodes?size=501", 400, "bad-paging", "'size' must be between 1 and 500");
    problem("/api/v1/nodes?page=-1", 400, "bad-paging", "'page' must be 0 or more");
    problem("/api/v1/nodes?page=first", 400, "bad-paging", "'page' is not an integer");
    problem(
        "/api/v1/nodes",
        "selector",
        "pool in (a",
        400,
        "bad-selector",
        "expected ',' or ')' in the value set at position 10, found end of input");
    problem(
        "/api/v1/nodes",
        "selector",
        "pool===a",
        400,
        "bad-selector",
        "expected a label value at position 6, found '='");
    problem("/api/v1/nodes?selector=-bad", 400, "bad-selector", "label key '-bad' is invalid");
    problem("/api/v1/nodes?hostKind=windows", 400, "bad-host-kind", "unknown host kind 'windows'");
    problem("/api/v1/nodes?gpuModel=H100", 400, "bad-gpu-model", "got 'H100'");
    problem(
        "/api/v1/nodes?view=compact",
        400,
        "bad-filter",
        "query parameter 'view': unknown value 'compact'; allowed: full, brief");
    problem("/api/v1/nodes?view=full,brief", 400, "bad-filter", "'view' takes one value");
    problem("/api/v1/nodes/no-such-node", 404, "unknown-node", "no node named 'no-such-node'");
    problem(
        "/api/v1/nodes/no-such-node/events", 404, "unknown-node", "no node named 'no-such-node'");
    problem("/api/v1/nodes/" + A + "/events?size=x", 400, "bad-paging", "'size' is not an integer");
    given()
        .post("/api/v1/admin/projection/rebuild?timeoutSeconds=0")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", containsString("'timeoutSeconds'"));
  }

  private static void problem(String path, int status, String slug, String detail) {
    problem(path, null, null, status, slug, detail);
  }

  /** As above, with one query parameter passed unencoded (RestAssured encodes it once). */
  private static void problem(
      String path, String param, String value, int status, String slug, String detail) {
    var request = given();
    if (param != null) {
      request = request.queryParam(param, value);
    }
    request
        .get(path)
        .then()
        .statusCode(status)
        .contentType("application/problem+json")
        .body("status", equalTo(status))
        .body("type", endsWith("/" + slug))
        .body("title", org.hamcrest.Matchers.not(org.hamcrest.Matchers.emptyOrNullString()))
        .body("detail", containsString(detail));
  }

  private static JsonPath summary() {
    return ApiReads.ok("/api/v1/fleet/summary");
  }

  private long delta(JsonPath after, String path) {
    return value(after, path) - value(summaryBefore, path);
  }

  private static long value(JsonPath json, String path) {
    Object value = json.get(path);
    return value == null ? 0 : ((Number) value).longValue();
  }

  private long modelDelta(JsonPath after, String model, String field) {
    String path = "gpuModels.find { it.pciDeviceId == '" + model + "' }." + field;
    return value(after, path) - value(summaryBefore, path);
  }
}
