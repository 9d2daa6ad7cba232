package io.fleetwave.agent.desired;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.SimulatedNode;
import io.fleetwave.simulator.fleet.FleetFile;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/** 10,000 following simulated nodes: one command consumer for all, each node applies its spec. */
class SpecFollowingScaleIT {
  private static final String EVENTS = "scale.node-events";
  private static final int NODES = 10_000;

  @Test
  void tenThousandNodesFollowTheirSpecsThroughOneConsumerOnAFewThreads() throws Exception {
    FleetFile fleetFile =
        FleetFile.parse(
            """
            nodes:
              - {name-prefix: scale-talos, count: 5000, host: talos, driver-version: "580.95.05",
                 gpus: [{model: H200, count: 2}]}
              - {name-prefix: scale-vgpu, count: 5000, host: vgpu-host,
                 driver-version: "580.95.05", gpus: [{model: L40S, count: 2}]}
            """,
            "scale.yaml");
    CommandSigner signer = CommandSigner.generate();
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics(8, EVENTS, Topics.NODE_COMMANDS);
      kafka.createTopics(8, EmbeddedKafka.compacted(), Topics.NODE_DESIRED);
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
        try (KafkaConsumer<String, byte[]> consumer = eventsConsumer(kafka)) {
          await()
              .atMost(Duration.ofSeconds(120))
              .until(
                  () -> {
                    for (var record : consumer.poll(Duration.ofMillis(500))) {
                      if (record.value() != null && isApplied(record.value())) {
                        applied.add(record.key());
                      }
                    }
                    return applied.size() == NODES;
                  });
        }
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;
        int threadsAdded = Thread.activeCount() - threadsBefore;
        System.out.printf(
            "10,000 following nodes: every SpecApplied read back after %d ms, %d threads added%n",
            elapsedMs, threadsAdded);
        assertThat(threadsAdded).as("no thread (and no consumer) per node").isLessThan(25);
        assertThat(fleet.publisher().failed()).isZero();
      }
    }
  }

  private static boolean isApplied(byte[] value) throws EventRejectedException {
    return EventCodec.decode(value).data() instanceof SpecApplied;
  }

  private static KafkaConsumer<String, byte[]> eventsConsumer(EmbeddedKafka kafka) {
    KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    List<TopicPartition> partitions =
        consumer.partitionsFor(EVENTS).stream()
            .map(p -> new TopicPartition(EVENTS, p.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    return consumer;
  }
}
