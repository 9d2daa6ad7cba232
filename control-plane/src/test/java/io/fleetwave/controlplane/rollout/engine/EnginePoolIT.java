package io.fleetwave.controlplane.rollout.engine;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.fixtures.CanaryRollouts;
import io.fleetwave.controlplane.fixtures.FleetNodes;
import io.fleetwave.controlplane.fixtures.FleetNodes.Node;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.Topics;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The engine works on its own PostgreSQL pool ({@link EnginePool}): with every connection of the
 * application's shared pool taken (the projection and the API stalled), a node's result still
 * reaches the engine, and the next node's signed spec still goes out on fleet.node-desired.
 */
@QuarkusTest
class EnginePoolIT {
  private static final Duration BOUND = Duration.ofSeconds(60);
  // Below the shared pool's 30 s connection timeout: the projection waits, it does not fail.
  private static final Duration WHILE_HELD = Duration.ofSeconds(20);
  private static final List<Node> FLEET =
      List.of(
          new Node("epool-1", HostKind.UBUNTU, "z1", "550.127.05", "H100-80GB", 1, labels()),
          new Node("epool-2", HostKind.UBUNTU, "z1", "550.127.05", "H100-80GB", 1, labels()));

  @ConfigProperty(name = "quarkus.datasource.reactive.max-size")
  int sharedPoolSize;

  @Inject Pool pool;

  @Test
  void theNextSpecGoesOutWhileTheSharedPoolIsExhausted() throws Exception {
    FleetNodes.publishAndAwait(FLEET);
    String id = CanaryRollouts.startCanary("engine-pool-it", "suite=engine-pool", BOUND);
    try (TopicClient topic = new TopicClient()) {
      Map.Entry<String, Long> canary = awaitOneSpec(topic);
      String next = canary.getKey().equals("epool-1") ? "epool-2" : "epool-1";
      // An agent enrolls once, long before its spec arrives: enrolment (a database write) is not
      // what this test starves, the engine's next spec is.
      topic.keyOf(canary.getKey());
      List<SqlConnection> held = new ArrayList<>();
      try {
        for (int i = 0; i < sharedPoolSize; i++) {
          held.add(pool.getConnection().await().atMost(BOUND));
        }
        topic.publish(Events.envelope(canary.getKey(), 1, 2, new SpecApplied(canary.getValue())));

        await("the spec of " + next + " on " + Topics.NODE_DESIRED + " with the shared pool held")
            .atMost(WHILE_HELD)
            .until(() -> topic.lastSpecGeneration(next).isPresent());
      } finally {
        held.forEach(connection -> connection.close().await().atMost(BOUND));
      }
    } finally {
      given().post("/api/v1/rollouts/" + id + "/abort").then().statusCode(200);
    }
  }

  /** The canary's spec: the one node of the fleet with a spec record, and its generation. */
  private static Map.Entry<String, Long> awaitOneSpec(TopicClient topic) throws Exception {
    await("the canary's spec").atMost(BOUND).until(() -> specs(topic).size() == 1);
    Map<String, Long> specs = specs(topic);
    assertThat(specs).hasSize(1);
    return specs.entrySet().iterator().next();
  }

  private static Map<String, Long> specs(TopicClient topic) throws Exception {
    Map<String, Long> specs = new java.util.HashMap<>();
    for (Node node : FLEET) {
      topic.lastSpecGeneration(node.name()).ifPresent(g -> specs.put(node.name(), g));
    }
    return specs;
  }

  private static Map<String, String> labels() {
    return Map.of("suite", "engine-pool");
  }
}
