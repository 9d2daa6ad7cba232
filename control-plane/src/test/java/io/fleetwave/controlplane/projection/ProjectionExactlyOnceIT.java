package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;

import io.fleetwave.controlplane.fixtures.ProjectionRebuilds;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.reactive.messaging.kafka.KafkaClientService;
import io.smallrye.reactive.messaging.kafka.KafkaConsumer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Invariants 1 and 2: duplicates, a consumer restarted from an earlier offset and a rebuild from
 * offset 0 all leave the projection exactly as the first pass made it.
 */
@QuarkusTest
class ProjectionExactlyOnceIT {
  private static final List<HostKind> KINDS = List.of(HostKind.values());
  private static final String PREFIX = "eo-";
  private static final int NODES = 6;

  @Inject ProjectionMetrics metrics;
  @Inject KafkaClientService kafkaClients;

  @Test
  void duplicatesReplaysAndRebuildLeaveTheProjectionIdentical() {
    List<Envelope<NodeEvent>> events = history();
    try (TopicClient topic = new TopicClient()) {
      topic.publishAll(events);
      awaitFinalPositions();
      Map<String, List<String>> first = ProjectionRows.of(PREFIX);
      assertThat(first.get("nodes")).hasSize(NODES);
      assertThat(first.get("node_events"))
          .as("every event but the heartbeats")
          .hasSize(events.size() - 2 * NODES);

      // Every event again, newest first: applying any of them would roll the nodes back.
      double skippedBefore = metrics.skipped();
      topic.publishAll(events.reversed());
      await("the duplicates to be skipped")
          .atMost(Duration.ofSeconds(30))
          .until(() -> metrics.skipped() >= skippedBefore + events.size());
      assertThat(ProjectionRows.of(PREFIX)).isEqualTo(first);

      // The live consumer restarts from offset 0: the whole topic is redelivered.
      double skippedBeforeReplay = metrics.skipped();
      seekLiveConsumerToBeginning();
      await("the replay from offset 0 to be skipped")
          .atMost(Duration.ofSeconds(60))
          .until(() -> metrics.skipped() >= skippedBeforeReplay + 2L * events.size());
      assertThat(ProjectionRows.of(PREFIX)).isEqualTo(first);
    }

    ProjectionRebuilds.rebuild(Duration.ofSeconds(90))
        .statusCode(200)
        .body("equal", equalTo(true))
        .body("differences", empty());
    assertThat(ProjectionRows.of(PREFIX)).isEqualTo(ProjectionRows.of(PREFIX));
  }

  /** Per node: a first run (epoch 1) and a restart (epoch 2) that changes driver and MIG mode. */
  private static List<Envelope<NodeEvent>> history() {
    List<Envelope<NodeEvent>> events = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      String node = PREFIX + i;
      HostKind kind = KINDS.get(i % KINDS.size());
      Map<String, String> labels = Map.of("pool", i % 2 == 0 ? "training" : "inference");
      events.add(Events.envelope(node, 1, 0, Events.registered(node, kind, "570.1", labels)));
      events.add(Events.envelope(node, 1, 1, Events.inventory(Events.H100, 2, MigMode.DISABLED)));
      events.add(Events.envelope(node, 1, 2, Events.heartbeat(30)));
      events.add(Events.envelope(node, 1, 3, Events.stopping()));
      events.add(Events.envelope(node, 2, 0, Events.registered(node, kind, "580.95.05", labels)));
      events.add(Events.envelope(node, 2, 1, Events.inventory(Events.H100, 2, MigMode.ENABLED)));
      events.add(Events.envelope(node, 2, 2, Events.heartbeat(60)));
    }
    return events;
  }

  private static void awaitFinalPositions() {
    await("all nodes projected up to (2, 2)")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              for (int i = 0; i < NODES; i++) {
                long[] position = ProjectionRows.position(PREFIX + i);
                if (position == null || position[0] != 2 || position[1] != 2) {
                  return false;
                }
              }
              return true;
            });
  }

  private void seekLiveConsumerToBeginning() {
    // Every consumer of the channel (one per configured partition stream) seeks its partitions.
    List<KafkaConsumer<Object, Object>> consumers =
        kafkaClients.getConsumers(NodeEventsConsumer.CHANNEL);
    assertThat(consumers).isNotEmpty();
    int assignedPartitions = 0;
    for (KafkaConsumer<Object, Object> consumer : consumers) {
      var assigned = consumer.getAssignments().await().atMost(Duration.ofSeconds(10));
      assignedPartitions += assigned.size();
      consumer.seekToBeginning(assigned).await().atMost(Duration.ofSeconds(10));
    }
    assertThat(assignedPartitions).isPositive();
  }
}
