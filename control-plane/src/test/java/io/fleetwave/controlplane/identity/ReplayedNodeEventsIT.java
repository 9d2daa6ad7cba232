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
import io.fleetwave.controlplane.projection.NodeEventAuthenticity;
import io.fleetwave.controlplane.rollout.engine.FleetObserver;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.security.NodeEventSigner;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testfixtures.events.GpuBuilder;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.common.annotation.Identifier;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Attack (issue 32, finding 5): a node's own older signed records, re-published unchanged during a
 * rollout, pass the signature check; they must not steer the rollout engine. Its view of a node
 * orders the node's records by (epoch, seq) as the projection does and never prefers a stale head
 * of the log over the projection.
 */
@QuarkusTest
class ReplayedNodeEventsIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final String OLD_DRIVER = "550.127.05";
  private static final String NEW_DRIVER = "560.35.03";

  /** The canary's timeout: it must outlast the test's few records, and fail it if unhealthy. */
  private static final int NODE_TIMEOUT_SECONDS = 20;

  @Inject
  @Identifier("default-kafka-broker")
  Map<String, Object> kafka;

  @Inject Pool pool;
  @Inject NodeEventAuthenticity authenticity;

  /** A record as the node signed and published it, to be published again, byte for byte. */
  @SuppressWarnings("ArrayRecordComponent") // the bytes sent, never compared as a record
  private record Signed(String node, byte[] value, String keyId, String signature) {
    static Signed by(NodeEventSigner key, Envelope<NodeEvent> envelope) {
      byte[] value = EventCodec.encode(envelope);
      return new Signed(envelope.subject(), value, key.keyId(), key.sign(value));
    }

    void publish(TopicClient topic) {
      topic.publishRaw(node, value, keyId, signature);
    }
  }

  @Test
  void anOlderHealthyInventoryReplayedDoesNotPassACanaryWhoseGpuFailed() {
    List<FleetNodes.Node> fleet =
        List.of(node("replay-canary-1", OLD_DRIVER), node("replay-canary-2", OLD_DRIVER));
    try (TopicClient topic = new TopicClient()) {
      Map<String, NodeEventSigner> keys = new java.util.HashMap<>();
      Map<String, Signed> healthy = new java.util.HashMap<>();
      for (FleetNodes.Node node : fleet) {
        NodeEventSigner key = NodeEnrolments.enroll(node.name());
        keys.put(node.name(), key);
        Signed.by(key, Events.envelope(node.name(), 1, 0, FleetNodes.registered(node)))
            .publish(topic);
        Signed inventory =
            Signed.by(key, Events.envelope(node.name(), 1, 1, FleetNodes.inventory(node)));
        inventory.publish(topic);
        healthy.put(node.name(), inventory);
      }
      for (FleetNodes.Node node : fleet) {
        awaitPosition(node.name(), 1);
      }
      String rollout =
          CanaryRollouts.startCanary(
              "replay-canary", "replay-pool=canary", NODE_TIMEOUT_SECONDS, BOUND);
      String canary = inFlight(rollout);
      long generation = NodeActions.desiredGeneration(canary);
      NodeEventSigner key = keys.get(canary);
      FleetNodes.Node node =
          fleet.stream().filter(n -> n.name().equals(canary)).findFirst().orElseThrow();

      // GPU 0 fails while the spec is applied; then the attacker re-publishes the node's own
      // healthy inventory of seq 1; then the node reports its spec applied.
      Signed.by(key, Events.envelope(canary, 1, 2, failedGpu0(node))).publish(topic);
      healthy.get(canary).publish(topic);
      Signed.by(key, Events.envelope(canary, 1, 3, new SpecApplied(generation))).publish(topic);

      await("the canary failed, as unhealthy, at its timeout")
          .atMost(BOUND.plusSeconds(NODE_TIMEOUT_SECONDS))
          .until(
              () -> !nodes(rollout, "failed").isEmpty() || !nodes(rollout, "succeeded").isEmpty());
      assertThat(nodes(rollout, "succeeded")).as("nodes the replay passed").isEmpty();
      assertThat(
              given()
                  .get("/api/v1/rollouts/" + rollout + "/nodes?state=failed")
                  .path("items[0].reason")
                  .toString())
          .contains("unhealthy: GPU 0 failed");
      given().post("/api/v1/rollouts/" + rollout + "/abort").then().statusCode(200);
    }
  }

  @Test
  void anOlderRegistrationReplayedDoesNotTurnTheNewDriverBackInTheEnginesView() {
    FleetNodes.Node node = node("replay-driver", OLD_DRIVER);
    FleetNodes.Node upgraded = node("replay-driver", NEW_DRIVER);
    NodeEventSigner key = NodeEnrolments.enroll(node.name());
    Signed oldRegistration =
        Signed.by(key, Events.envelope(node.name(), 1, 0, FleetNodes.registered(node)));
    try (TopicClient topic = new TopicClient()) {
      oldRegistration.publish(topic);
      Signed.by(key, Events.envelope(node.name(), 1, 1, FleetNodes.inventory(node))).publish(topic);
      awaitPosition(node.name(), 1);

      // The engine follows the node; its driver change lands (the agent registers again with the
      // new driver) and the attacker replays the old registration right behind it.
      try (FleetObserver engine = observer()) {
        engine.watch(List.of(node.name()));
        assertThat(engine.of(node.name()).driverVersion()).isEqualTo(OLD_DRIVER);
        Signed.by(key, Events.envelope(node.name(), 1, 2, FleetNodes.registered(upgraded)))
            .publish(topic);
        oldRegistration.publish(topic);
        Signed.by(key, Events.envelope(node.name(), 1, 3, new SpecApplied(1))).publish(topic);
        assertNewDriverOnceApplied(engine, node.name(), 1, "an engine that saw the change");
      }

      // An engine that takes over reads the projection (which has the new driver), then the
      // replay from the head: the head's older record must not win over the projection.
      awaitPosition(node.name(), 3);
      try (FleetObserver engine = observer()) {
        engine.watch(List.of(node.name()));
        oldRegistration.publish(topic);
        Signed.by(key, Events.envelope(node.name(), 1, 4, new SpecApplied(2))).publish(topic);
        assertNewDriverOnceApplied(engine, node.name(), 2, "an engine that took over");
      }
    }
  }

  /**
   * Waits until {@code engine} read the node's SpecApplied of {@code generation}, published after
   * the replay, so that it read past the replay; then it must still see the new driver.
   */
  private static void assertNewDriverOnceApplied(
      FleetObserver engine, String node, long generation, String which) {
    await(which + " read past the replay (the node's SpecApplied after it)")
        .atMost(BOUND)
        .until(() -> engine.of(node).appliedGeneration() == generation);
    assertThat(engine.of(node).driverVersion())
        .as("the driver in the view of " + which)
        .isEqualTo(NEW_DRIVER);
  }

  /** The engine's view as RolloutEngines builds it: the application's Kafka, pool and key check. */
  private FleetObserver observer() {
    FleetObserver observer =
        new FleetObserver(kafka, pool, BOUND, () -> {}, authenticity::forBatchBlocking);
    observer.start();
    return observer;
  }

  private static FleetNodes.Node node(String name, String driver) {
    return new FleetNodes.Node(
        name, HostKind.UBUNTU, "z1", driver, "H100-80GB", 1, Map.of("replay-pool", "canary"));
  }

  private static GpuInventoryReported failedGpu0(FleetNodes.Node node) {
    GpuInventoryReported inventory = FleetNodes.inventory(node);
    return new GpuInventoryReported(
        inventory.gpus().stream()
            .map(
                gpu ->
                    gpu.index() == 0 ? GpuBuilder.from(gpu).health(GpuHealth.FAILED).build() : gpu)
            .toList());
  }

  private static void awaitPosition(String node, long seq) {
    await(node + " projected up to seq " + seq)
        .atMost(BOUND)
        .until(() -> Arrays.equals(ProjectionRows.position(node), new long[] {1, seq}));
  }

  private static String inFlight(String rollout) {
    return nodes(rollout, "in-flight").getFirst();
  }

  private static List<String> nodes(String rollout, String state) {
    return ApiReads.rolloutNodeNames(rollout, state);
  }
}
