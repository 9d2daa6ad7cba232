package io.fleetwave.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.rollout.driver.DriverChangeException;
import io.fleetwave.controlplane.rollout.driver.DriverChangeRequest;
import io.fleetwave.controlplane.rollout.driver.DriverRequests;
import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.SimulatedNode;
import io.fleetwave.simulator.fleet.FleetFile;
import io.fleetwave.testsupport.services.KafkaExtension;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The simulator executor over a small simulated fleet on a real Kafka broker. */
@ExtendWith(KafkaExtension.class)
class SimulatedDriverExecutorIT {
  private static final Duration BOUND = Duration.ofSeconds(20);
  private static final Duration APPLY_DELAY = Duration.ofMillis(500);
  private static final String TOPIC = "it.driver-executor";

  private static KafkaBroker kafka;
  private static SimulatedFleet fleet;
  private static SimulatedDriverExecutor executor;

  @BeforeAll
  static void start() {
    kafka.createTopics(1, TOPIC);
    fleet =
        SimulatedFleet.start(
            FleetFile.parse(
                """
                nodes:
                  - name-prefix: talos
                    count: 2
                    host: talos
                    driver-version: "570.172.08"
                    gpus: [{model: "0x233010DE", count: 1}]
                  - name-prefix: dc
                    count: 1
                    host: ubuntu-driver-container
                    driver-version: "570.172.08"
                    gpus: [{model: "0x233010DE", count: 1}]
                """,
                "driver-executor.yaml"),
            new SimulatedFleet.Settings(
                kafka.bootstrapServers(),
                Duration.ofSeconds(5),
                TOPIC,
                1,
                Duration.ofSeconds(20),
                Duration.ofSeconds(10)));
    executor = new SimulatedDriverExecutor(() -> Optional.of(fleet), APPLY_DELAY);
  }

  @AfterAll
  static void stop() {
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  void anOsUpgradeIsHandedOverAtOnceAndTheNodeRebootsIntoTheDriverLater() {
    SimulatedNode node = fleet.node("talos-0").orElseThrow();
    long epoch = node.epoch();
    int boots = node.gpus().bootCount();

    executor.request(DriverRequests.talos("talos-0")).await().atMost(BOUND);
    assertThat(node.facts().driverVersion())
        .as("handed over, not yet applied")
        .isEqualTo("570.172.08");
    executor.request(DriverRequests.talos("talos-0")).await().atMost(BOUND);

    await().atMost(BOUND).until(() -> node.facts().driverVersion().equals("580.95.05"));
    assertThat(node.gpus().driverVersion()).isEqualTo("580.95.05");
    await().atMost(BOUND).until(node::agentRunning);
    assertThat(node.epoch()).isGreaterThan(epoch);
    // The repeated request must not reboot the node a second time.
    await("one reboot for the repeated request")
        .during(APPLY_DELAY.multipliedBy(2))
        .atMost(BOUND)
        .until(() -> node.gpus().bootCount() == boots + 1);

    executor.request(DriverRequests.talos("talos-0")).await().atMost(BOUND);
    await("a request for the driver it runs changes nothing")
        .during(APPLY_DELAY.multipliedBy(2))
        .atMost(BOUND)
        .until(() -> node.gpus().bootCount() == boots + 1);
    assertThat(fleet.node("talos-1").orElseThrow().facts().driverVersion()).isEqualTo("570.172.08");
  }

  @Test
  void aDriverContainerNodeTakesAContainerImageButNotAnOsImage() {
    assertThatThrownBy(
            () ->
                executor
                    .request(
                        new DriverChangeRequest(
                            "r:dc-0:1",
                            DriverRequests.ROLLOUT,
                            "dc-0",
                            HostKind.UBUNTU_DRIVER_CONTAINER,
                            "570.172.08",
                            new DriverArtifact.OsImage("580.95.05", "ubuntu", "22.04")))
                    .await()
                    .atMost(BOUND))
        .isInstanceOf(DriverChangeException.class)
        .hasMessageContaining("driver executor simulator")
        .hasMessageContaining("node dc-0")
        .hasMessageContaining("gets its driver as driver-container");

    executor.request(DriverRequests.container("dc-0")).await().atMost(BOUND);
    await()
        .atMost(BOUND)
        .until(() -> fleet.node("dc-0").orElseThrow().facts().driverVersion().equals("580.95.05"));
  }

  @Test
  void anUnknownNodeOrNoFleetFailsNamingTheNode() {
    assertThatThrownBy(
            () -> executor.request(DriverRequests.talos("talos-99")).await().atMost(BOUND))
        .isInstanceOf(DriverChangeException.class)
        .hasMessageContaining("node talos-99")
        .hasMessageContaining("the demo fleet has no node talos-99");
    SimulatedDriverExecutor noFleet = new SimulatedDriverExecutor(Optional::empty, APPLY_DELAY);
    assertThatThrownBy(() -> noFleet.request(DriverRequests.talos("talos-1")).await().atMost(BOUND))
        .isInstanceOf(DriverChangeException.class)
        .hasMessageContaining("node talos-1")
        .hasMessageContaining("no simulated fleet is running");
  }
}
