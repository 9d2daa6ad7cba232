package io.fleetwave.agent.desired;

import static io.fleetwave.agent.desired.SignedCommands.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.Topics;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.fleet.FleetFile;
import io.fleetwave.testsupport.kafka.NodeEventsReader;
import io.fleetwave.testsupport.services.KafkaExtension;
import io.fleetwave.testsupport.services.Shared;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The simulated apply time of the rollout benchmark: each node starts converging a new spec only
 * after the delay, and the delay is waited on a timer, so four nodes on ONE worker thread all apply
 * within one delay (plus slack) instead of one after the other.
 */
@ExtendWith(KafkaExtension.class)
class ApplyDelayIT {
  private static final String EVENTS = "it.apply-delay.node-events";
  private static final Duration APPLY_DELAY = Duration.ofSeconds(2);
  private static final String FLEET =
      """
      nodes:
        - {name-prefix: h100, count: 4, host: ubuntu, driver-version: "580.95.05",
           gpus: [{model: "0x233010DE", count: 1}]}
      """;

  // Shared: its node names (h100-*) and events topic are its own, and the fleets it shares the
  // broker with follow no desired spec.
  @Test
  void everyNodeWaitsTheDelayOnATimerNotOnTheWorker(@Shared KafkaBroker kafka) {
    CommandSigner signer = CommandSigner.generate();
    kafka.createTopics(2, EVENTS, Topics.NODE_COMMANDS);
    kafka.createTopics(2, KafkaBroker.compacted(), Topics.NODE_DESIRED);
    SpecFollowing following = SpecFollowing.of(signer.verifier()).withApplyDelay(APPLY_DELAY);
    try (SimulatedFleet fleet =
            SimulatedFleet.start(
                FleetFile.parse(FLEET, "ApplyDelayIT"),
                new SimulatedFleet.Settings(
                    kafka.bootstrapServers(),
                    Duration.ofMinutes(5),
                    EVENTS,
                    1, // one worker: a blocking delay would apply the nodes one after the other
                    Duration.ofSeconds(10),
                    Duration.ofSeconds(10)),
                following,
                null);
        SignedCommands control = new SignedCommands(kafka.bootstrapServers(), signer);
        NodeEventsReader log = new NodeEventsReader(kafka.bootstrapServers(), EVENTS)) {
      List<String> nodes = fleet.nodes().stream().map(n -> n.name()).toList();
      GpuSpec layout = new GpuSpec(0, true, Map.of("3g.40gb", 2), 0, Map.of());
      Instant sent = Instant.now();
      nodes.forEach(node -> control.desiredAsync(spec(node, 1, layout)));
      control.flush();

      for (String node : nodes) {
        await("SpecApplied(1) of " + node)
            .atMost(Duration.ofSeconds(60))
            .until(() -> !log.of(node, SpecApplied.class).isEmpty());
      }
      for (String node : nodes) {
        Instant accepted = log.firstTime(node, SpecAccepted.class);
        Instant applied = log.firstTime(node, SpecApplied.class);
        assertThat(accepted).as(node + " accepted").isAfterOrEqualTo(sent.plus(APPLY_DELAY));
        // Serialised on the one worker, the last node would apply after 4 delays.
        assertThat(applied)
            .as(node + " applied")
            .isBefore(sent.plus(APPLY_DELAY.multipliedBy(2)).plusSeconds(1));
      }
    }
  }

  @Test
  void aNegativeDelayIsRefusedNamingIt() {
    SpecFollowing following = SpecFollowing.of(CommandSigner.generate().verifier());
    assertThatThrownBy(() -> following.withApplyDelay(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("applyDelay");
  }
}
