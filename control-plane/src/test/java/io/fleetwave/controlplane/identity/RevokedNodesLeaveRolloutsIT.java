package io.fleetwave.controlplane.identity;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.fixtures.ApiReads;
import io.fleetwave.controlplane.fixtures.CanaryRollouts;
import io.fleetwave.controlplane.fixtures.FleetNodes;
import io.fleetwave.controlplane.fixtures.NodeActions;
import io.fleetwave.controlplane.fixtures.NodeEnrolments;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.security.NodeEventSigner;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 32, finding 2: a node revoked while a rollout runs is taken out of it, by the decider and
 * through the log. A pending node revoked is never started (the rollout never writes its spec): it
 * is logged as NodeSkipped and shown as {@code skipped}, reason {@code revoked}. A node in flight
 * that is revoked fails with that reason, whatever it reports. A node whose forward change finished
 * and that is revoked before the rollback reaches it is not sent the rollback spec: skipped too.
 */
@QuarkusTest
class RevokedNodesLeaveRolloutsIT {
  private static final Duration BOUND = Duration.ofSeconds(30);

  @Test
  void aRevokedPendingNodeIsSkippedAndARevokedNodeInFlightFails() {
    List<String> names = List.of("revoked-rollout-1", "revoked-rollout-2", "revoked-rollout-3");
    try (TopicClient topic = new TopicClient()) {
      Map<String, NodeEventSigner> keys = registered(topic, names, "revoked-pool");
      String rollout =
          CanaryRollouts.startCanaryToleratingFailures(
              "revoked-mid-rollout", "revoked-pool=r", BOUND);
      String canary = nodes(rollout, "in-flight").getFirst();
      List<String> pending = nodes(rollout, "pending");
      String revokedPending = pending.getFirst();
      String trusted = pending.getLast();

      revoke(revokedPending);
      revoke(canary);

      await("the revoked canary failed and the rollout went on to wave 2")
          .atMost(BOUND)
          .until(() -> nodes(rollout, "in-flight").equals(List.of(trusted)));
      assertThat(reasons(rollout, "failed")).containsExactly(Map.entry(canary, "revoked"));
      assertThat(reasons(rollout, "skipped"))
          .as("the pending node revoked before its wave")
          .containsExactly(Map.entry(revokedPending, "revoked"));

      long generation = NodeActions.desiredGeneration(trusted);
      topic.publishSigned(
          Events.envelope(trusted, 1, 2, new SpecApplied(generation)), keys.get(trusted));
      await("the rollout completed with its trusted node")
          .atMost(BOUND)
          .until(
              () -> "completed".equals(given().get("/api/v1/rollouts/" + rollout).path("state")));

      List<Map<String, Object>> log =
          given().get("/api/v1/rollouts/" + rollout + "/events").jsonPath().getList("$");
      assertThat(log)
          .as("the rollout log: %s", log)
          .anySatisfy(
              event -> {
                assertThat((String) event.get("type")).contains("node-skipped");
                assertThat(event.get("data"))
                    .isEqualTo(Map.of("wave", 2, "node", revokedPending, "reason", "revoked"));
              })
          .noneSatisfy(
              event -> {
                assertThat((String) event.get("type")).contains("node-started");
                assertThat(((Map<?, ?>) event.get("data")).get("node")).isEqualTo(revokedPending);
              });
      assertThat(ApiReads.ok("/api/v1/nodes/" + revokedPending + "/spec").getMap("desired"))
          .as("the skipped node's desired spec: the rollout never wrote one")
          .isNull();
    }
  }

  @Test
  void aNodeRevokedBeforeItsRollbackIsNotSentTheRollbackSpec() {
    List<String> names = List.of("revoked-rollback-1", "revoked-rollback-2");
    try (TopicClient topic = new TopicClient()) {
      Map<String, NodeEventSigner> keys = registered(topic, names, "rb-pool");
      String rollout = startRollingBackOnFailure("revoked-before-rollback", "rb-pool=r");
      String canary = nodes(rollout, "in-flight").getFirst();
      String second = names.stream().filter(n -> !n.equals(canary)).findFirst().orElseThrow();
      topic.publishSigned(
          Events.envelope(canary, 1, 2, new SpecApplied(NodeActions.desiredGeneration(canary))),
          keys.get(canary));
      await("the canary succeeded and wave 2 started")
          .atMost(BOUND)
          .until(() -> nodes(rollout, "in-flight").equals(List.of(second)));
      long canaryGeneration = NodeActions.desiredGeneration(canary);

      revoke(canary);
      topic.publishSigned(
          Events.envelope(
              second,
              1,
              2,
              new SpecRejected(
                  NodeActions.desiredGeneration(second), "c-1", "unplannable", "does not fit")),
          keys.get(second));

      await("the rollback started with the trusted node only")
          .atMost(BOUND)
          .until(
              () -> "rolling-back".equals(state(rollout)) || "rolled-back".equals(state(rollout)));
      await("the revoked canary skipped in the rollback")
          .atMost(BOUND)
          .until(() -> reasons(rollout, "skipped").equals(Map.of(canary, "revoked")));
      assertThat(NodeActions.desiredGeneration(canary))
          .as("the revoked canary's desired spec: no rollback spec was written for it")
          .isEqualTo(canaryGeneration);
    }
  }

  /** Enrolls each node, publishes its signed registration and inventory, waits until projected. */
  private static Map<String, NodeEventSigner> registered(
      TopicClient topic, List<String> names, String poolLabel) {
    Map<String, NodeEventSigner> keys = new HashMap<>();
    for (String name : names) {
      NodeEventSigner key = NodeEnrolments.enroll(name);
      keys.put(name, key);
      FleetNodes.Node node =
          new FleetNodes.Node(
              name, HostKind.UBUNTU, "z1", "550.127.05", "H100-80GB", 1, Map.of(poolLabel, "r"));
      topic.publishSigned(Events.envelope(name, 1, 0, FleetNodes.registered(node)), key);
      topic.publishSigned(Events.envelope(name, 1, 1, FleetNodes.inventory(node)), key);
    }
    for (String name : names) {
      await(name + " projected")
          .atMost(BOUND)
          .until(() -> Arrays.equals(ProjectionRows.position(name), new long[] {1, 1}));
    }
    return keys;
  }

  private static String startRollingBackOnFailure(String name, String selector) {
    String id =
        given()
            .contentType("application/json")
            .body(
                """
                {"name": "%s", "target": {"selector": "%s"},
                 "change": {"migConfig": "all-balanced"},
                 "strategy": {"waves": ["1", "100%%"], "maxUnavailable": "1", "soakSeconds": 0,
                              "failureThreshold": {"perWave": "0", "total": "0",
                                                   "action": "rollback"}}}
                """
                    .formatted(name, selector))
            .post("/api/v1/rollouts")
            .then()
            .statusCode(201)
            .extract()
            .path("id");
    await("the canary of " + name + " in flight")
        .atMost(BOUND)
        .until(() -> nodes(id, "in-flight").size() == 1);
    return id;
  }

  private static String state(String rollout) {
    return given().get("/api/v1/rollouts/" + rollout).path("state");
  }

  private static void revoke(String node) {
    given().delete("/api/v1/nodes/" + node + "/enrolment").then().statusCode(200);
  }

  private static List<String> nodes(String rollout, String state) {
    return ApiReads.rolloutNodeNames(rollout, state);
  }

  private static Map<String, String> reasons(String rollout, String state) {
    JsonPath page = ApiReads.rolloutNodes(rollout, state);
    Map<String, String> reasons = new HashMap<>();
    List<String> nodes = page.getList("items.node", String.class);
    List<String> why = page.getList("items.reason", String.class);
    for (int i = 0; i < nodes.size(); i++) {
      reasons.put(nodes.get(i), why.get(i));
    }
    return reasons;
  }
}
