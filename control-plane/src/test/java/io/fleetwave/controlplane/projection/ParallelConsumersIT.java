package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.fixtures.FourProjectionConsumers;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.RunsLast;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.reactive.messaging.kafka.KafkaClientService;
import io.smallrye.reactive.messaging.kafka.KafkaConsumer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The projection consumes fleet.node-events with several consumers of one group in the process (the
 * channel's partitions attribute): together they hold every partition, each partition once, and a
 * node's events, keyed into one partition, are still applied in order while the other partitions'
 * batches are applied beside them. One consumer is the default; this test runs the projection with
 * four. Last in its application: AsOfReadsIT, which shares it, counts the whole fleet and must see
 * none of this test's nodes.
 */
@QuarkusTest
@TestProfile(FourProjectionConsumers.class)
@RunsLast
class ParallelConsumersIT {
  private static final String PREFIX = "par-";
  private static final int NODES = 48;

  @ConfigProperty(name = "mp.messaging.incoming.node-events.partitions")
  int consumers;

  @Inject KafkaClientService kafkaClients;

  @Test
  void consumersShareThePartitionsAndKeepEachNodesOrder() {
    assertThat(consumers).as("consumers configured for the projection").isGreaterThan(1);
    List<KafkaConsumer<Object, Object>> channelConsumers =
        kafkaClients.getConsumers(NodeEventsConsumer.CHANNEL);
    assertThat(channelConsumers).hasSize(consumers);
    await("every partition of fleet.node-events assigned to exactly one consumer")
        .atMost(Duration.ofSeconds(60))
        .until(() -> assignedOnce(channelConsumers) == FleetTopics.NODE_PARTITIONS);

    // Interleaved across nodes (so that every partition has work at once): per node a
    // registration, then two inventories; the later one must win on every node.
    List<Envelope<NodeEvent>> events = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      String node = PREFIX + i;
      events.add(
          Events.envelope(
              node, 1, 0, Events.registered(node, HostKind.UBUNTU, "580.95.05", Map.of())));
    }
    for (int i = 0; i < NODES; i++) {
      events.add(
          Events.envelope(PREFIX + i, 1, 1, Events.inventory(Events.H100, 4, MigMode.DISABLED)));
    }
    for (int i = 0; i < NODES; i++) {
      events.add(
          Events.envelope(PREFIX + i, 1, 2, Events.inventory(Events.H200, 2, MigMode.ENABLED)));
    }
    try (TopicClient topic = new TopicClient()) {
      topic.publishAll(events);
    }
    ProjectionRows.awaitCount(
        "every node projected up to (1, 2)",
        Duration.ofSeconds(60),
        "SELECT count(*) FROM nodes WHERE name LIKE 'par-%' AND last_epoch = 1 AND last_seq = 2",
        NODES);
    assertThat(ProjectionRows.count("SELECT count(*) FROM gpus WHERE node LIKE 'par-%'"))
        .as("the second inventory's two GPUs per node, not the first one's four")
        .isEqualTo(2L * NODES);
    assertThat(
            ProjectionRows.count(
                "SELECT count(*) FROM gpus WHERE node LIKE 'par-%' AND mig_mode = 'enabled'"
                    + " AND upper(pci_device_id) = upper('"
                    + Events.H200
                    + "')"))
        .isEqualTo(2L * NODES);
    assertThat(ProjectionRows.count("SELECT count(*) FROM node_events WHERE node LIKE 'par-%'"))
        .as("each event once in the history")
        .isEqualTo(3L * NODES);
  }

  /** Partitions of fleet.node-events held by exactly one consumer; -1 if any is held twice. */
  private static int assignedOnce(List<KafkaConsumer<Object, Object>> consumers) {
    Set<TopicPartition> seen = new HashSet<>();
    for (KafkaConsumer<Object, Object> consumer : consumers) {
      for (TopicPartition partition :
          consumer.getAssignments().await().atMost(Duration.ofSeconds(10))) {
        if (!seen.add(partition)) {
          return -1;
        }
      }
    }
    return (int) seen.stream().filter(p -> p.topic().equals("fleet.node-events")).count();
  }
}
