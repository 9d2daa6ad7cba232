package io.fleetwave.controlplane.rollout.engine;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.fixtures.ApiReads;
import io.fleetwave.controlplane.fixtures.FleetNodes;
import io.fleetwave.controlplane.fixtures.NodeActions;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, item 4: a rollout bounded in GPUs, per team and overall, run by the engine against real
 * Kafka and PostgreSQL with the test as the nodes' agents. maxUnavailable alone would take all
 * eight nodes at once; the budget lets at most two 8-GPU nodes of team search (16 GPUs) and 20 GPUs
 * in all go, and the rollout's own log shows it never had more offline.
 */
@QuarkusTest
class GpuBudgetRolloutIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final int PER_TEAM = 16;
  private static final int OVERALL = 20;

  @Test
  void theEngineNeverHasMoreGpusOfflineThanTheBudgetPerTeamAndOverall() {
    Map<String, Integer> gpus = new LinkedHashMap<>();
    Map<String, String> teams = new HashMap<>();
    for (int i = 1; i <= 4; i++) {
      gpus.put("budget-search-" + i, 8);
      teams.put("budget-search-" + i, "search");
      gpus.put("budget-vision-" + i, 2);
      teams.put("budget-vision-" + i, "vision");
    }
    FleetNodes.publishAndAwait(
        gpus.keySet().stream()
            .map(
                name ->
                    new FleetNodes.Node(
                        name,
                        HostKind.UBUNTU,
                        "z1",
                        "550.127.05",
                        "H100-80GB",
                        gpus.get(name),
                        Map.of("budget-suite", "b", "team", teams.get(name))))
            .toList());
    try (TopicClient topic = new TopicClient()) {
      JsonPath plan = post(true).statusCode(200).extract().jsonPath();
      assertThat(plan.getInt("forecasts[0].peakGpusOffline")).isEqualTo(OVERALL);
      assertThat(plan.getMap("forecasts[0].peakGpusOfflineByLabel.team"))
          .containsEntry("search", PER_TEAM)
          .containsEntry("vision", 4);

      String rollout = post(false).statusCode(201).extract().path("id");
      int rounds = 0;
      while (!"completed".equals(state(rollout))) {
        assertThat(++rounds).as("rounds to complete rollout %s", rollout).isLessThan(20);
        if (rounds == 1) {
          // Two search nodes (16 GPUs) and two vision nodes (4): 20, where maxUnavailable is 8.
          await("rollout " + rollout + " starts the four nodes the budget lets go at once")
              .atMost(BOUND)
              .until(() -> inFlightNodes(rollout).size() == 4);
        }
        List<String> inFlight = awaitInFlight(rollout);
        for (String node : inFlight) {
          topic.publish(
              Events.envelope(node, 1, 2, new SpecApplied(NodeActions.desiredGeneration(node))));
        }
        await("the applied nodes of rollout " + rollout + " succeeded")
            .atMost(BOUND)
            .until(
                () ->
                    "completed".equals(state(rollout))
                        || inFlightNodes(rollout).stream().noneMatch(inFlight::contains));
      }

      assertBudgetHeldAfterEveryEvent(rollout, gpus, teams);
      assertThat(
              post(true)
                  .statusCode(200)
                  .extract()
                  .jsonPath()
                  .getList("forecasts[0].unmeasuredKinds"))
          .as("the nodes' apply times, measured in the rollout just completed, replace the default")
          .isEmpty();
    }
  }

  /** Walks the rollout's log: a node is offline from its start until it succeeds or fails. */
  private static void assertBudgetHeldAfterEveryEvent(
      String rollout, Map<String, Integer> gpus, Map<String, String> teams) {
    List<Map<String, Object>> log =
        given().get("/api/v1/rollouts/" + rollout + "/events").jsonPath().getList("$");
    Map<String, Integer> offlineByTeam = new HashMap<>();
    Map<String, Integer> peakByTeam = new HashMap<>();
    int offline = 0;
    int peak = 0;
    int started = 0;
    for (Map<String, Object> event : log) {
      String type = (String) event.get("type");
      Object node = ((Map<?, ?>) event.get("data")).get("node");
      // Types are versioned: io.fleetwave.rollout.node-started.v1.
      int sign =
          type.contains(".node-started.")
              ? 1
              : type.contains(".node-succeeded.") || type.contains(".node-failed.") ? -1 : 0;
      if (sign == 0) {
        continue;
      }
      started += sign > 0 ? 1 : 0;
      int own = gpus.get((String) node) * sign;
      offline += own;
      offlineByTeam.merge(teams.get((String) node), own, Integer::sum);
      assertThat(offline)
          .as("GPUs offline after seq %s", event.get("seq"))
          .isLessThanOrEqualTo(OVERALL);
      assertThat(offlineByTeam)
          .as("GPUs offline per team after seq %s", event.get("seq"))
          .allSatisfy((team, n) -> assertThat(n).isLessThanOrEqualTo(PER_TEAM));
      peak = Math.max(peak, offline);
      offlineByTeam.forEach((team, n) -> peakByTeam.merge(team, n, Math::max));
    }
    assertThat(started)
        .as("every node started once: %s", log.stream().map(e -> e.get("type")).toList())
        .isEqualTo(gpus.size());
    assertThat(peak).as("the overall budget was reached, not exceeded").isEqualTo(OVERALL);
    assertThat(peakByTeam).containsEntry("search", PER_TEAM);
  }

  private static io.restassured.response.ValidatableResponse post(boolean dryRun) {
    return given()
        .contentType("application/json")
        .queryParam("dryRun", dryRun)
        .body(
            """
            {"name": "gpu-budget",
             "target": {"selector": "budget-suite=b"},
             "change": {"migConfig": "all-balanced"},
             "strategy": {"waves": ["100%%"], "maxUnavailable": "8", "soakSeconds": 0,
                          "maxGpusOffline": %d, "maxGpusOfflinePer": {"team": %d},
                          "failureThreshold": {"perWave": "0", "total": "0", "action": "pause"},
                          "nodeTimeoutSeconds": 600}}
            """
                .formatted(OVERALL, PER_TEAM))
        .post("/api/v1/rollouts")
        .then();
  }

  /** The nodes in flight once the engine has started what it may (the set no longer grows). */
  private static List<String> awaitInFlight(String rollout) {
    await("rollout " + rollout + " has nodes in flight")
        .atMost(BOUND)
        .until(() -> !inFlightNodes(rollout).isEmpty());
    // The engine starts a round's nodes in one decision: one read after a non-empty one is stable.
    return inFlightNodes(rollout);
  }

  private static List<String> inFlightNodes(String rollout) {
    return ApiReads.rolloutNodeNames(rollout, "in-flight");
  }

  private static String state(String rollout) {
    return given().get("/api/v1/rollouts/" + rollout + "/summary").path("state");
  }
}
