package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import io.fleetwave.controlplane.fixtures.ApiReads;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An event older than the one applied changes nothing: not the facts, GPUs, nor the history. */
@QuarkusTest
class ProjectionOrderIT {
  private static final String NODE = "ord-0";

  @Inject ProjectionMetrics metrics;

  @Test
  void olderEventsAfterANewerOneChangeNothing() {
    try (TopicClient topic = new TopicClient()) {
      topic.publish(
          Events.envelope(
              NODE, 5, 10, Events.registered(NODE, HostKind.TALOS, "580.95.05", Map.of())));
      topic.publish(
          Events.envelope(NODE, 5, 11, Events.inventory(Events.H200, 2, MigMode.ENABLED)));
      await("ord-0 at (5, 11)")
          .atMost(Duration.ofSeconds(30))
          .until(() -> ProjectionRows.isAt(NODE, 5, 11));
      Map<String, List<String>> applied = ProjectionRows.of(NODE);

      double skippedBefore = metrics.skipped();
      // Same epoch, earlier seq; an earlier epoch with a later seq; same position, new event id.
      topic.publish(
          Events.envelope(NODE, 5, 9, Events.registered(NODE, HostKind.COS, "470.1", Map.of())));
      topic.publish(Events.envelope(NODE, 4, 20, Events.inventory(Events.L4, 1, MigMode.DISABLED)));
      topic.publish(Events.envelope(NODE, 5, 11, Events.heartbeat(99)));
      await("the three stale events to be skipped")
          .atMost(Duration.ofSeconds(30))
          .until(() -> metrics.skipped() >= skippedBefore + 3);

      assertThat(ProjectionRows.of(NODE)).isEqualTo(applied);
    }
    ApiReads.answer("/api/v1/nodes/" + NODE)
        .body("hostKind", equalTo("talos"))
        .body("driverVersion", equalTo("580.95.05"))
        .body("gpus.size()", equalTo(2))
        .body("gpus[0].pciDeviceId", equalTo(Events.H200));
  }
}
