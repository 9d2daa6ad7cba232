package io.fleetwave.controlplane.api;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import io.fleetwave.controlplane.fixtures.ApiReads;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testfixtures.events.NodeRegisteredBuilder;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A node whose agent started before its driver (node-agent DriverWait): it is shown registered,
 * without a driver version, with the reason; once the driver is up, with the version and its GPUs.
 */
@QuarkusTest
class NodeWithoutDriverIT {
  private static final String NODE = "driverless-api-1";
  private static final String REASON =
      "driverVersion=none: GPUs not ready: no libnvidia-ml.so.1 under /run/nvidia/driver (driver"
          + " container), /home/kubernetes/bin/nvidia (COS), /usr/local (Talos system extension),"
          + " / (host install); looked in lib64, usr/lib/x86_64-linux-gnu under each";

  @Test
  void aNodeWithoutItsDriverIsShownRegisteredWithTheReasonThenWithItsGpusOnceUp() {
    try (TopicClient topic = new TopicClient()) {
      topic.publish(
          Events.envelope(
              NODE,
              1,
              0,
              NodeRegisteredBuilder.forHost(NODE, HostKind.UBUNTU)
                  .driverVersion(null)
                  .driverProvider(DriverProvider.NONE)
                  .reasons(Map.of("driverVersion", REASON))
                  .build()));
      topic.publish(Events.envelope(NODE, 1, 1, Events.heartbeat(5)));
    }
    awaitPosition(1, 1);
    ApiReads.answer("/api/v1/nodes/" + NODE)
        .body("hostKind", equalTo("ubuntu"))
        .body("driverVersion", nullValue())
        .body("reasons.driverVersion", equalTo(REASON))
        .body("gpus.size()", equalTo(0));

    try (TopicClient topic = new TopicClient()) {
      topic.publish(
          Events.envelope(
              NODE, 1, 2, Events.registered(NODE, HostKind.UBUNTU, "580.95.05", Map.of())));
      topic.publish(
          Events.envelope(NODE, 1, 3, Events.inventory(Events.H100, 2, MigMode.DISABLED)));
    }
    awaitPosition(1, 3);
    ApiReads.answer("/api/v1/nodes/" + NODE)
        .body("driverVersion", equalTo("580.95.05"))
        .body("gpus.size()", equalTo(2));
  }

  private static void awaitPosition(long epoch, long seq) {
    await("node " + NODE + " projected up to (" + epoch + ", " + seq + ")")
        .atMost(Duration.ofSeconds(30))
        .until(() -> ProjectionRows.isAt(NODE, epoch, seq));
  }
}
