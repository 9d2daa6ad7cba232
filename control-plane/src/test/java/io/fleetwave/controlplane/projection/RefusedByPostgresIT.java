package io.fleetwave.controlplane.projection;

import static io.fleetwave.controlplane.fixtures.DeadLetters.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;

import io.fleetwave.controlplane.fixtures.ApiReads;
import io.fleetwave.controlplane.fixtures.DeadLetters;
import io.fleetwave.controlplane.fixtures.NodePartitions;
import io.fleetwave.controlplane.fixtures.ProjectionRebuilds;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testfixtures.events.GpuBuilder;
import io.fleetwave.testfixtures.events.NodeRegisteredBuilder;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;

/**
 * Invariant 7 for records that decode but whose data PostgreSQL refuses: each of an inventory and a
 * registration with a NUL byte in the middle of one batch lands on fleet.node-events.dlq unchanged,
 * with the SQLSTATE and the server's message as its cause, and the events before and after it in
 * the same batch, of the same node and of another, are projected; a rebuild from offset 0 leaves
 * the same events out and ends equal.
 */
@QuarkusTest
class RefusedByPostgresIT {
  private static final String NODE = "refused-0";
  private static final String NEIGHBOUR = NodePartitions.neighbour(NODE);

  private record Refused(Envelope<NodeEvent> event, String cause) {}

  @Test
  void eventsPostgresRefusesAreDeadLetteredWithTheirSqlStateAndTheRestOfTheirBatchIsProjected() {
    // A NUL byte in a GPU's product: refused by the statement that writes the inventory's GPUs.
    Refused nulByteInGpu =
        new Refused(
            Events.envelope(
                NODE,
                1,
                2,
                new GpuInventoryReported(
                    List.of(
                        GpuBuilder.from(Events.gpu(0, Events.H100, MigMode.DISABLED))
                            .product("NVIDIA H100\u0000")
                            .build()))),
            "SQLSTATE 22");
    Refused nulByte =
        new Refused(Events.envelope(NODE, 1, 3, kernel("6.8.0\u0000-85")), "SQLSTATE 22");
    List<Envelope<NodeEvent>> batch =
        List.of(
            Events.envelope(
                NODE, 1, 0, Events.registered(NODE, HostKind.UBUNTU, "580.95.05", Map.of())),
            Events.envelope(NODE, 1, 1, Events.inventory(Events.H100, 1, MigMode.DISABLED)),
            nulByteInGpu.event(),
            Events.envelope(
                NEIGHBOUR,
                1,
                0,
                Events.registered(NEIGHBOUR, HostKind.TALOS, "580.95.05", Map.of())),
            nulByte.event(),
            Events.envelope(NEIGHBOUR, 1, 1, Events.inventory(Events.H200, 1, MigMode.DISABLED)),
            Events.envelope(NODE, 1, 4, Events.heartbeat(4)),
            Events.envelope(NODE, 1, 5, Events.inventory(Events.H100, 2, MigMode.DISABLED)));
    // An oversized PCI device id (too large for its index, SQLSTATE 54000) was the third case until
    // the codec took only 0x and eight hex digits there: it is refused when decoded now.
    List<Refused> refused = List.of(nulByteInGpu, nulByte);

    try (TopicClient topic = new TopicClient()) {
      List<RecordMetadata> sent = topic.publishTogether(batch);
      assertThat(sent.stream().map(RecordMetadata::partition).distinct())
          .as("one partition, so that one poll (one projection batch) holds all of them")
          .hasSize(1);

      await("the events after the refused ones to be projected")
          .atMost(Duration.ofSeconds(60))
          .until(() -> ProjectionRows.isAt(NODE, 1, 5) && ProjectionRows.isAt(NEIGHBOUR, 1, 1));
      await("every refused event on the dead-letter topic")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertDeadLettered(topic.deadLetters(), refused, batch, sent));
    }
    ApiReads.answer("/api/v1/nodes/" + NODE + "/events").body("items.seq", contains(5, 1, 0));
    assertThat(ProjectionRows.count("SELECT missed_events FROM nodes WHERE name = '" + NODE + "'"))
        .as("the two refused events, counted on the node row")
        .isEqualTo(2);
    // The fleet view applied the refused records too; once it has read their dead letters, the
    // node is read from the tables (until the comparison takes the view back).
    await("the node as the tables hold it")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                ApiReads.answer("/api/v1/nodes/" + NODE)
                    .body("kernel", equalTo("6.8.0-85-generic"))
                    .body("gpus.size()", equalTo(2)));
    ApiReads.answer("/api/v1/nodes/" + NEIGHBOUR)
        .body("hostKind", equalTo("talos"))
        .body("gpus.size()", equalTo(1));
    ProjectionRebuilds.rebuild(Duration.ofSeconds(300))
        .statusCode(200)
        .body("equal", equalTo(true));
  }

  private static void assertDeadLettered(
      List<ConsumerRecord<String, byte[]>> letters,
      List<Refused> refused,
      List<Envelope<NodeEvent>> batch,
      List<RecordMetadata> sent) {
    for (Refused expected : refused) {
      RecordMetadata origin = sent.get(batch.indexOf(expected.event()));
      ConsumerRecord<String, byte[]> letter =
          DeadLetters.letterOf(
              letters,
              origin,
              "seq " + expected.event().seq() + " (expected '" + expected.cause() + "')");
      assertThat(header(letter, Topics.DLQ_REASON_HEADER))
          .startsWith("refused by PostgreSQL: SQLSTATE")
          .contains(expected.cause());
      assertThat(header(letter, Topics.DLQ_TOPIC_HEADER)).isEqualTo(Topics.NODE_EVENTS);
      assertThat(letter.key()).isEqualTo(NODE);
      assertThat(letter.value()).isEqualTo(EventCodec.encode(expected.event()));
    }
  }

  private static NodeRegistered kernel(String kernel) {
    NodeRegistered base = Events.registered(NODE, HostKind.UBUNTU, "580.95.05", Map.of());
    return NodeRegisteredBuilder.from(base).kernel(kernel).build();
  }
}
