package io.fleetwave.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.testsupport.kafka.NodeEventsReader;
import io.fleetwave.testsupport.kafka.NodeEventsReader.Received;
import io.fleetwave.testsupport.services.KafkaExtension;
import io.fleetwave.testsupport.services.Shared;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A driver change on simulated nodes against a real Kafka broker: the host reboots into the new
 * driver after the apply delay and the next agent run registers it.
 */
@ExtendWith(KafkaExtension.class)
class SimulatedDriverInstallIT {
  private static final String TOPIC = "it.driver-install";
  private static final Duration WAIT = Duration.ofSeconds(30);
  // Long enough that the checks made right after asking ("nothing happens before the apply delay",
  // a repeated request while the install is in flight) still fall inside it when the test JVM is
  // descheduled for a while: at 400 ms they failed on a 2-core machine at load 20.
  private static final Duration APPLY_DELAY = Duration.ofSeconds(2);

  private static final String FLEET =
      """
      nodes:
        - name-prefix: talos-h100
          count: 2
          host: talos
          driver-version: "570.172.08"
          gpus: [{model: "0x233010DE", count: 2}]
        - name-prefix: ubuntu-a100
          count: 2
          host: ubuntu
          driver-version: "570.172.08"
          gpus: [{model: "0x20B210DE", count: 1}]
      """;

  @Shared private static KafkaBroker kafka;
  private static SimulatedFleet fleet;
  private static NodeEventsReader reader;

  @BeforeAll
  static void startFleet() {
    kafka.createTopics(2, TOPIC);
    fleet = TestFleets.start(kafka, FLEET, "driver-install.yaml", Duration.ofMillis(300), TOPIC);
    reader = new NodeEventsReader(kafka.bootstrapServers(), TOPIC);
  }

  @AfterAll
  static void stop() throws Exception {
    TestFleets.closeAll(reader, fleet);
  }

  @Test
  void anOsImageUpgradeRebootsTheNodeIntoTheNewDriverAndItReRegisters() throws Exception {
    SimulatedNode node = fleet.node("talos-h100-0").orElseThrow();
    node.gpus().setMigMode(0, true); // Hopper: at once, and survives the reboot
    node.gpus().createGpuInstance(0, "3g.40gb", 0);
    long epochBefore = node.epoch();
    String bootBefore = node.gpus().bootId();

    CompletableFuture<Void> installed = node.installDriver("580.95.05", APPLY_DELAY);
    assertThat(node.epoch()).as("nothing happens before the apply delay").isEqualTo(epochBefore);
    assertThat(node.gpus().driverVersion()).isEqualTo("570.172.08");
    installed.get(WAIT.toSeconds(), TimeUnit.SECONDS);

    long epochAfter = node.epoch();
    assertThat(epochAfter).isGreaterThan(epochBefore);
    assertThat(node.gpus().driverVersion()).isEqualTo("580.95.05");
    assertThat(node.facts().driverVersion()).isEqualTo("580.95.05");
    assertThat(node.facts().reasons().get("driverVersion")).contains("installed by a rollout");
    assertThat(node.gpus().bootId()).isNotEqualTo(bootBefore);

    await().atMost(WAIT).until(() -> registrationOf(node.name(), epochAfter) != null);
    NodeRegistered registered = registrationOf(node.name(), epochAfter);
    assertThat(registered.driverVersion()).isEqualTo("580.95.05");
    assertThat(registered.osVersion()).isEqualTo(node.spec().os().osVersion());
    awaitEvent(
        node.name(),
        epochAfter,
        "an inventory without the instances the reboot lost",
        e ->
            e instanceof GpuInventoryReported inventory
                && inventory.gpus().getFirst().instances().isEmpty());
    awaitEvent(
        node.name(),
        epochAfter,
        "a heartbeat of the new boot",
        e -> e instanceof Heartbeat heartbeat && heartbeat.bootId().equals(node.gpus().bootId()));
    // The other Talos node keeps its driver.
    assertThat(fleet.node("talos-h100-1").orElseThrow().facts().driverVersion())
        .isEqualTo("570.172.08");
  }

  @Test
  void aRepeatedRequestReusesTheInstallInFlightAndRebootsOnce() throws Exception {
    SimulatedNode node = fleet.node("ubuntu-a100-0").orElseThrow();
    long epochBefore = node.epoch();

    CompletableFuture<Void> first = node.installDriver("580.95.05", APPLY_DELAY);
    CompletableFuture<Void> repeat = node.installDriver("580.95.05", APPLY_DELAY);
    assertThat(repeat).isSameAs(first);
    assertThatThrownBy(() -> node.installDriver("575.57.08", APPLY_DELAY))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ubuntu-a100-0 is installing driver 580.95.05")
        .hasMessageContaining("575.57.08");
    first.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
    long epochAfter = node.epoch();

    // Asking for the driver it now runs changes nothing: no reboot, no new run.
    CompletableFuture<Void> again = node.installDriver("580.95.05", APPLY_DELAY);
    assertThat(again).isDone();
    assertThat(node.epoch()).isEqualTo(epochAfter);

    await().atMost(WAIT).until(() -> registrationOf(node.name(), epochAfter) != null);
    List<Long> registeredEpochs =
        reader.poll().stream()
            .filter(r -> r.key().equals(node.name()))
            .filter(r -> r.envelope().data() instanceof NodeRegistered)
            .map(r -> r.envelope().epoch())
            .filter(epoch -> epoch > epochBefore)
            .toList();
    assertThat(registeredEpochs).as("one reboot, one new registration").containsExactly(epochAfter);
  }

  private static NodeRegistered registrationOf(String node, long epoch) {
    return events(node, epoch).stream()
        .filter(NodeRegistered.class::isInstance)
        .map(NodeRegistered.class::cast)
        .findFirst()
        .orElse(null);
  }

  private static void awaitEvent(String node, long epoch, String what, Predicate<Object> event) {
    await(what + " of " + node + " in epoch " + epoch)
        .atMost(WAIT)
        .until(() -> events(node, epoch).stream().anyMatch(event));
  }

  private static List<Object> events(String node, long epoch) {
    return reader.poll().stream()
        .filter(r -> r.key().equals(node) && r.envelope().epoch() == epoch)
        .map(Received::envelope)
        .map(e -> (Object) e.data())
        .toList();
  }
}
