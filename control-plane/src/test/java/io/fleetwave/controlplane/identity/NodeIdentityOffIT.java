package io.fleetwave.controlplane.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.testsupport.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * What {@code fleetwave.node-identity.required=false} does, the one place it is set: unsigned node
 * events count, as they did before node identity existed. Production, the demo and every other test
 * run with it on (NodeIdentityIT shows the same record refused there).
 */
@QuarkusTest
@TestProfile(NodeIdentityOffIT.Off.class)
class NodeIdentityOffIT {
  private static final Duration BOUND = Duration.ofSeconds(30);

  /** Node identity off. */
  public static class Off implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of("fleetwave.node-identity.required", "false");
    }
  }

  @ConfigProperty(name = "kafka.bootstrap.servers")
  String bootstrap;

  @Test
  void unsignedEventsOfANodeThatNeverEnrolledAreProjected() {
    String node = "ident-off-a";
    try (TopicClient topic = new TopicClient(bootstrap)) {
      topic.publishRaw(
          node,
          EventCodec.encode(
              Events.envelope(
                  node, 1, 0, Events.registered(node, HostKind.UBUNTU, "580.95.05", Map.of()))));
      topic.publishRaw(node, EventCodec.encode(Events.envelope(node, 1, 1, Events.heartbeat(5))));
      await()
          .atMost(BOUND)
          .until(() -> Arrays.equals(ProjectionRows.position(node), new long[] {1, 1}));
      assertThat(topic.deadLetters())
          .as("dead letters of " + node)
          .noneMatch(record -> node.equals(record.key()));
    }
  }
}
