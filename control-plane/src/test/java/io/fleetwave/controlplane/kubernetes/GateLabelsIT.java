package io.fleetwave.controlplane.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fleetwave.controlplane.fixtures.KubernetesInstall;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.controlplane.fixtures.UserOperatorStandIn;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.GateReleased;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The device-plugin gate mirrored as a node label, against the fabric8 mock API server in CRUD mode
 * (no real API server can run on the build machines), in the application of {@link
 * KubernetesInstall}: its nodes enroll with a Kafka user each, whose Secret {@link
 * UserOperatorStandIn} writes.
 */
@QuarkusTest
@TestProfile(KubernetesInstall.class)
class GateLabelsIT {
  private static final String NODE = "gate-node-0";
  private static final String NOT_IN_CLUSTER = "gate-node-elsewhere";

  @Inject KubernetesClient kubernetes;

  @Test
  void theGateFollowsTheAgentsEventsAndOtherNodesAreUnaffected() {
    kubernetes
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .create();
    // The User Operator writes the Secrets that the nodes' enrolments (on their first events) wait
    // for; nothing here asks it anything.
    try (UserOperatorStandIn _ =
            new UserOperatorStandIn(kubernetes, KubernetesInstall.KAFKA_NAMESPACE);
        TopicClient topic = new TopicClient()) {
      topic.publish(
          Events.envelope(
              NOT_IN_CLUSTER,
              1,
              0,
              Events.registered(NOT_IN_CLUSTER, HostKind.TALOS, "580.95.05", Map.of())));
      topic.publish(Events.envelope(NOT_IN_CLUSTER, 1, 1, new GateReleased(1)));
      topic.publish(
          Events.envelope(
              NODE, 1, 0, Events.registered(NODE, HostKind.UBUNTU, "580.95.05", Map.of())));
      topic.publish(Events.envelope(NODE, 1, 1, new GateHeld(0, "node booted")));
      await().atMost(Duration.ofSeconds(30)).until(() -> "held".equals(label()));

      topic.publish(Events.envelope(NODE, 1, 2, new GateReleased(1)));
      await().atMost(Duration.ofSeconds(30)).until(() -> "released".equals(label()));

      // The node outside the cluster was projected too (its partition may have another of the
      // projection's consumers, so it is awaited, not assumed done before NODE's events).
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(ProjectionRows.position(NOT_IN_CLUSTER)).isNotNull());
    }
  }

  private String label() {
    Node node = kubernetes.nodes().withName(NODE).get();
    return node.getMetadata().getLabels() == null
        ? null
        : node.getMetadata().getLabels().get(GateLabels.LABEL);
  }
}
