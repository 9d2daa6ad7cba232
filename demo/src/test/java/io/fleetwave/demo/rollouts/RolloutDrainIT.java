package io.fleetwave.demo.rollouts;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fleetwave.controlplane.fixtures.KubernetesApiResource;
import io.fleetwave.controlplane.fixtures.MockKubernetesApi;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.controlplane.kubernetes.KubernetesPods;
import io.fleetwave.demo.fixtures.DrainFleetProfile;
import io.fleetwave.demo.fixtures.RolloutsApi;
import io.fleetwave.events.Topics;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Rollouts over simulated nodes that are Kubernetes nodes too (the fabric8 mock API server in CRUD
 * mode, with the Eviction API added), with cordon and drain on, against the real embedded Kafka and
 * PostgreSQL, driven through the API. The drain's bounds are short here (2 s); the fleet's other
 * node (SimulatorDemoIT's) is in none of its pools and in no cluster.
 */
@QuarkusTest
@TestProfile(DrainFleetProfile.class)
class RolloutDrainIT {

  private MockKubernetesApi api;
  private KubernetesClient kubernetes;

  @BeforeEach
  void clusterAndFleet() {
    api = KubernetesApiResource.api();
    kubernetes = api.client();
    ProjectionRows.awaitCount(
        "the simulated fleet is projected",
        Duration.ofSeconds(90),
        "SELECT count(*) FROM nodes WHERE driver_version IS NOT NULL"
            + " AND (name LIKE 'drain-%' OR name LIKE 'pdb-%' OR name LIKE 'refuse-%')",
        6);
  }

  @Test
  void eachNodeIsCordonedDrainedPausedChangedRestoredAndUncordonedInThatOrder() {
    for (String name : List.of("drain-h100-0", "drain-h100-1")) {
      kubernetes.nodes().resource(node(name, false)).create();
    }
    kubernetes.nodes().resource(node("drain-h100-2", true)).create();
    create(pod("gpu-jobs", "train-0", "drain-h100-0", true));
    create(pod("web", "nginx-0", "drain-h100-0", false));
    create(pod("gpu-jobs", "train-2", "drain-h100-2", true));

    Instant created = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    String id = createRollout("drain", "pool=drain", "all-balanced", "0", "0");
    RolloutsApi.awaitState(id, "completed", Duration.ofSeconds(60));

    List<Map<String, Object>> events = RolloutsApi.events(id);
    for (String node : List.of("drain-h100-0", "drain-h100-1", "drain-h100-2")) {
      assertThat(typesOf(events, node))
          .as(node)
          .containsExactly(
              "node-started",
              "node-taken-out-of-service",
              "node-succeeded",
              "node-returned-to-service");
    }
    Map<String, Object> out = data(events, "node-taken-out-of-service", "drain-h100-0");
    assertThat(out.get("evicted")).isEqualTo(List.of("gpu-jobs/train-0"));
    assertThat(out.get("pausedOperands")).isEqualTo(List.of("device-plugin", "dcgm-exporter"));
    assertThat(out.get("cordonedBefore")).isEqualTo(false);
    assertThat(out.get("migConfigBefore")).isEqualTo("all-disabled");
    assertThat(data(events, "node-taken-out-of-service", "drain-h100-2").get("cordonedBefore"))
        .isEqualTo(true);
    Map<String, Object> back = data(events, "node-returned-to-service", "drain-h100-2");
    assertThat(back.get("uncordoned")).isEqualTo(false);
    assertThat((String) back.get("note")).contains("stays cordoned");

    assertThat(kubernetes.pods().inNamespace("gpu-jobs").withName("train-0").get()).isNull();
    assertThat(kubernetes.pods().inNamespace("web").withName("nginx-0").get())
        .as("a pod without GPUs is not evicted")
        .isNotNull();
    Node done = kubernetes.nodes().withName("drain-h100-0").get();
    assertThat(done.getSpec().getUnschedulable()).isNotEqualTo(true);
    assertThat(done.getMetadata().getAnnotations()).doesNotContainKey("fleetwave.io/cordoned-by");
    assertThat(done.getMetadata().getLabels())
        .containsEntry("nvidia.com/mig.config", "all-balanced")
        .containsEntry("nvidia.com/mig.config.state", "success")
        .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true")
        .containsEntry("nvidia.com/gpu.deploy.dcgm-exporter", "true")
        .containsEntry("nvidia.com/gpu.deploy.gpu-feature-discovery", "false")
        .doesNotContainKey("nvidia.com/gpu-driver-upgrade.skip");
    assertThat(kubernetes.nodes().withName("drain-h100-2").get().getSpec().getUnschedulable())
        .as("a node cordoned beforehand stays cordoned")
        .isTrue();

    // Kubernetes requests and the spec on Kafka, in time: cordon, eviction, labels, spec,
    // labels back, uncordon.
    Instant cordon = at("PATCH", "/nodes/drain-h100-0", "unschedulable", "true");
    Instant evicted = at("POST", "/pods/train-0/eviction");
    Instant paused = at("PATCH", "/nodes/drain-h100-0", "paused-for-mig-change");
    Instant spec = specPublished("drain-h100-0", created);
    Instant restored = at("PATCH", "/nodes/drain-h100-0", "\"success\"");
    Instant uncordon = at("PATCH", "/nodes/drain-h100-0", "unschedulable", "false");
    assertThat(List.of(cordon, evicted, paused, spec, restored, uncordon)).isSorted();
  }

  @Test
  void anEvictionABudgetBlocksFailsTheNodeWithTheReasonAndTheWaveThresholdPauses() {
    kubernetes.nodes().resource(node("pdb-h100-0", false)).create();
    kubernetes.nodes().resource(node("pdb-h100-1", false)).create();
    create(pod("gpu-jobs", "train-7", "pdb-h100-0", true));
    api.protect("gpu-jobs", "train-7");

    String id = createRollout("pdb", "pool=pdb", "all-balanced", "0", "100%");
    JsonPath paused = RolloutsApi.awaitState(id, "paused", Duration.ofSeconds(60));

    String reason = "eviction of gpu-jobs/train-7 blocked by a PodDisruptionBudget for 2s";
    assertThat(paused.getString("progress.statusReason"))
        .contains("wave 1", "pdb-h100-0 (" + reason);
    List<Map<String, Object>> events = RolloutsApi.events(id);
    assertThat(typesOf(events, "pdb-h100-0")).containsExactly("node-started", "node-failed");
    assertThat((String) data(events, "node-failed", "pdb-h100-0").get("reason"))
        .startsWith(reason)
        .contains("stays cordoned", "rollout/" + id);
    Node blocked = kubernetes.nodes().withName("pdb-h100-0").get();
    assertThat(blocked.getSpec().getUnschedulable()).isTrue();
    assertThat(blocked.getMetadata().getLabels())
        .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true")
        .containsEntry("nvidia.com/mig.config.state", "success")
        .doesNotContainKey("nvidia.com/gpu-driver-upgrade.skip");
    assertThat(kubernetes.pods().inNamespace("gpu-jobs").withName("train-7").get()).isNotNull();

    given().post("/api/v1/rollouts/" + id + "/abort").then().statusCode(200);
  }

  @Test
  void aChangeTheNodeRefusesSetsTheOperandsBackAndTheMigStateFailedAndKeepsItCordoned() {
    kubernetes.nodes().resource(node("refuse-a100-0", false)).create();
    // A100: enabling MIG needs a GPU reset, which a running compute process blocks.
    long pid =
        given()
            .contentType(ContentType.JSON)
            .body("{\"gpu\": 0, \"name\": \"train.py\"}")
            .post("/api/v1/simulator/nodes/refuse-a100-0/start-process")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath()
            .getLong("pid");
    try {
      String id = createRollout("refuse", "pool=refuse", "all-1g.10gb", "100%", "100%");
      RolloutsApi.awaitState(id, "completed", Duration.ofSeconds(60));

      List<Map<String, Object>> events = RolloutsApi.events(id);
      assertThat(typesOf(events, "refuse-a100-0"))
          .containsExactly(
              "node-started",
              "node-taken-out-of-service",
              "node-failed",
              "node-kept-out-of-service");
      Map<String, Object> kept = data(events, "node-kept-out-of-service", "refuse-a100-0");
      assertThat(kept.get("restoredOperands")).isEqualTo(List.of("dcgm-exporter", "device-plugin"));
      assertThat((String) kept.get("reason"))
          .contains("train.py", "nvidia.com/mig.config.state=failed", "stays cordoned");
      Node failed = kubernetes.nodes().withName("refuse-a100-0").get();
      assertThat(failed.getSpec().getUnschedulable()).isTrue();
      assertThat(failed.getMetadata().getAnnotations())
          .containsEntry("fleetwave.io/cordoned-by", "rollout/" + id)
          .doesNotContainKey("fleetwave.io/labels-before");
      assertThat(failed.getMetadata().getLabels())
          .containsEntry("nvidia.com/mig.config", "all-1g.10gb")
          .containsEntry("nvidia.com/mig.config.state", "failed")
          .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true")
          .containsEntry("nvidia.com/gpu.deploy.dcgm-exporter", "true")
          .doesNotContainKey("nvidia.com/gpu-driver-upgrade.skip");
    } finally {
      given()
          .contentType(ContentType.JSON)
          .body("{\"gpu\": 0, \"pid\": " + pid + "}")
          .post("/api/v1/simulator/nodes/refuse-a100-0/stop-process")
          .then()
          .statusCode(200);
    }
  }

  // --- the cluster ---

  private static Node node(String name, boolean cordoned) {
    return KubernetesPods.node(name, KubernetesPods.gpuOperatorLabels(), cordoned);
  }

  private static Pod pod(String namespace, String name, String node, boolean gpu) {
    return KubernetesPods.pod(namespace, name, node, gpu ? "nvidia.com/gpu" : null);
  }

  private void create(Pod pod) {
    kubernetes.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
  }

  /** When the mock API server answered the first request matching these. */
  private Instant at(String method, String pathPart, String... bodyParts) {
    for (MockKubernetesApi.Request r : api.journal()) {
      if (r.method().equals(method)
          && r.path().contains(pathPart)
          && java.util.Arrays.stream(bodyParts).allMatch(r.body()::contains)) {
        return r.at();
      }
    }
    throw new AssertionError("no " + method + " " + pathPart + " " + List.of(bodyParts));
  }

  /** When the node's first desired spec since {@code since} was appended to Kafka. */
  private Instant specPublished(String node, Instant since) {
    try (TopicClient topic = new TopicClient()) {
      List<Instant> specs =
          topic.readAll(Topics.NODE_DESIRED).stream()
              .filter(r -> node.equals(r.key()))
              .map(r -> Instant.ofEpochMilli(r.timestamp()))
              .filter(at -> !at.isBefore(since))
              .sorted()
              .toList();
      assertThat(specs).as("specs of " + node).isNotEmpty();
      return specs.getFirst();
    }
  }

  // --- the API ---

  private static String createRollout(
      String name, String selector, String migConfig, String perWave, String total) {
    String spec =
        """
        {"name": "%s", "target": {"selector": "%s"}, "change": {"migConfig": "%s"},
         "strategy": {"waves": ["100%%"], "maxUnavailable": "1", "soakSeconds": 0,
                      "failureThreshold": {"perWave": "%s", "total": "%s", "action": "pause"},
                      "nodeTimeoutSeconds": 30}}
        """
            .formatted(name, selector, migConfig, perWave, total);
    return RolloutsApi.create(spec);
  }

  /** The short types (node-started, ...) of a node's events, in log order. */
  @SuppressWarnings("unchecked")
  private static List<String> typesOf(List<Map<String, Object>> events, String node) {
    List<String> out = new ArrayList<>();
    for (Map<String, Object> event : events) {
      Map<String, Object> data = (Map<String, Object>) event.get("data");
      if (node.equals(data.get("node"))) {
        String type = (String) event.get("type");
        out.add(type.substring("io.fleetwave.rollout.".length(), type.lastIndexOf(".v")));
      }
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> data(
      List<Map<String, Object>> events, String type, String node) {
    for (Map<String, Object> event : events) {
      Map<String, Object> data = (Map<String, Object>) event.get("data");
      if (((String) event.get("type")).contains("." + type + ".")
          && node.equals(data.get("node"))) {
        return data;
      }
    }
    throw new AssertionError("no " + type + " for " + node);
  }
}
