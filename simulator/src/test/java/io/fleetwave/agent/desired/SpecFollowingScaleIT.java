package io.fleetwave.agent.desired;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.Topics;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.SimulatedNode;
import io.fleetwave.simulator.fleet.FleetFile;
import io.fleetwave.testsupport.kafka.NodeEventsReader;
import io.fleetwave.testsupport.kafka.NodeEventsReader.Received;
import io.fleetwave.testsupport.services.KafkaExtension;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Thousands of following simulated nodes: one command consumer for all, each node applies its spec.
 * {@code -Dscale.specFollowing.nodes} (2,000 in the suite: a consumer or a thread per node would
 * add 2,000 threads, as surely caught as 10,000; the rollout bench runs 10,000 following nodes in
 * FleetMain, and {@code 10000} runs this test at that size).
 */
@ExtendWith(KafkaExtension.class)
class SpecFollowingScaleIT {
  private static final String EVENTS = "scale.node-events";
  private static final int NODES = Integer.getInteger("scale.specFollowing.nodes", 2_000);

  @Test
  void thousandsOfNodesFollowTheirSpecsThroughOneConsumerOnAFewThreads(KafkaBroker kafka)
      throws Exception {
    FleetFile fleetFile =
        FleetFile.parse(
            """
            nodes:
              - {name-prefix: scale-talos, count: %d, host: talos, driver-version: "580.95.05",
                 gpus: [{model: H200, count: 2}]}
              - {name-prefix: scale-vgpu, count: %d, host: vgpu-host,
                 driver-version: "580.95.05", gpus: [{model: L40S, count: 2}]}
            """
                .formatted(NODES / 2, NODES - NODES / 2),
            "scale.yaml");
    CommandSigner signer = CommandSigner.generate();
    kafka.createTopics(8, EVENTS, Topics.NODE_COMMANDS);
    kafka.createTopics(8, KafkaBroker.compacted(), Topics.NODE_DESIRED);
    int threadsBefore = Thread.activeCount();
    long started = System.nanoTime();
    try (SimulatedFleet fleet =
            SimulatedFleet.start(
                fleetFile,
                new SimulatedFleet.Settings(
                    kafka.bootstrapServers(),
                    Duration.ofMinutes(5),
                    EVENTS,
                    2,
                    Duration.ofSeconds(60),
                    Duration.ofSeconds(10)),
                SpecFollowing.of(signer.verifier()),
                null);
        SignedCommands control = new SignedCommands(kafka.bootstrapServers(), signer)) {
      for (SimulatedNode node : fleet.nodes()) {
        control.desiredAsync(SignedCommands.spec(node.name(), 1));
      }
      control.flush();

      Set<String> applied = new HashSet<>();
      try (NodeEventsReader reader = new NodeEventsReader(kafka.bootstrapServers(), EVENTS)) {
        await()
            .atMost(Duration.ofSeconds(120))
            .until(
                () -> {
                  applied.addAll(appliedNodes(reader.pollNew()));
                  return applied.size() == NODES;
                });
      }
      long elapsedMs = (System.nanoTime() - started) / 1_000_000;
      int threadsAdded = Thread.activeCount() - threadsBefore;
      System.out.printf(
          "%,d following nodes: every SpecApplied read back after %d ms, %d threads added%n",
          NODES, elapsedMs, threadsAdded);
      assertThat(threadsAdded).as("no thread (and no consumer) per node").isLessThan(25);
      assertThat(fleet.publisher().failed()).isZero();
    }
  }

  private static Set<String> appliedNodes(List<Received> received) {
    return received.stream()
        .filter(r -> r.envelope().data() instanceof SpecApplied)
        .map(Received::key)
        .collect(Collectors.toSet());
  }
}
