package io.fleetwave.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.simulator.fleet.FleetFile;
import io.fleetwave.testsupport.services.KafkaExtension;
import io.fleetwave.testsupport.services.Shared;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** 10,000 simulated nodes in one JVM: one producer, a few scheduler threads, no thread per node. */
@ExtendWith(KafkaExtension.class)
class SimulatedFleetScaleIT {
  private static final String TOPIC = "scale.node-events";

  @Test
  void tenThousandNodesStartOnAFewThreadsAndAllRegister(@Shared KafkaBroker kafka) {
    StringBuilder yaml = new StringBuilder("nodes:\n");
    String[][] groups = {
      {"ubuntu", "A100-80GB", "8"},
      {"ubuntu-driver-container", "H100-80GB", "8"},
      {"talos", "H200", "8"},
      {"cos", "L4", "2"},
      {"vgpu-host", "L40S", "4"}
    };
    for (String[] group : groups) {
      yaml.append(
          """
            - name-prefix: scale-%s
              count: 2000
              host: %s
              driver-version: "580.95.05"
              gpus: [{model: %s, count: %s}]
          """
              .formatted(group[0], group[0], group[1], group[2]));
    }
    FleetFile fleetFile = FleetFile.parse(yaml.toString(), "scale.yaml");

    kafka.createTopics(8, TOPIC);
    int threadsBefore = Thread.activeCount();
    long started = System.nanoTime();
    SimulatedFleet fleet =
        SimulatedFleet.start(
            fleetFile,
            new SimulatedFleet.Settings(
                kafka.bootstrapServers(),
                Duration.ofSeconds(30),
                TOPIC,
                2,
                Duration.ofSeconds(60),
                Duration.ofSeconds(10)));
    long startReturnedMs = (System.nanoTime() - started) / 1_000_000;
    try {
      assertThat(fleet.nodes()).hasSize(10_000);
      // NodeRegistered + GpuInventoryReported of every node acknowledged by the broker.
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> fleet.publisher().acknowledged() >= 20_000);
      long elapsedMs = (System.nanoTime() - started) / 1_000_000;
      int threadsAdded = Thread.activeCount() - threadsBefore;
      Runtime runtime = Runtime.getRuntime();
      System.out.printf(
          "10,000 simulated nodes: start() returned after %d ms, start events acknowledged"
              + " after %d ms, %d threads added, heap used %d MiB%n",
          startReturnedMs,
          elapsedMs,
          threadsAdded,
          (runtime.totalMemory() - runtime.freeMemory()) >> 20);
      assertThat(threadsAdded).as("no thread per node").isLessThan(20);
      assertThat(fleet.publisher().failed()).isZero();
    } finally {
      fleet.close();
    }
    assertThat(fleet.publisher().acknowledged()).isGreaterThanOrEqualTo(30_000);
  }
}
