package io.fleetwave.controlplane.projection;

import static io.fleetwave.controlplane.fixtures.DeadLetters.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fleetwave.controlplane.fixtures.ApiReads;
import io.fleetwave.controlplane.fixtures.DeadLetters;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;

/**
 * Invariant 7: each kind of bad record lands on fleet.node-events.dlq unchanged with its cause in
 * the headers, and the good events around them are projected. The bad records are signed by the
 * node they are keyed by, so they pass the signature check and it is the decoder that refuses them
 * (the unsigned and forged ones: NodeIdentityIT).
 */
@QuarkusTest
class DeadLetterIT {
  private static final String NODE = "dlq-0";

  @SuppressWarnings("ArrayRecordComponent") // the bytes sent, never compared as a record
  private record Bad(String key, byte[] value, String reason, RecordMetadata sent) {}

  @Test
  void badRecordsAreDeadLetteredWithTheirCauseAndTheGoodOnesAroundThemAreProjected() {
    Envelope<NodeEvent> registered =
        Events.envelope(
            NODE, 1, 0, Events.registered(NODE, HostKind.UBUNTU, "580.95.05", Map.of()));
    try (TopicClient topic = new TopicClient()) {
      topic.publish(registered);
      List<Bad> bad =
          List.of(
              bad(topic, NODE, "{\"specversion\": ".getBytes(StandardCharsets.UTF_8), "envelope"),
              bad(
                  topic,
                  NODE,
                  edit(registered, j -> j.put("type", "io.fleetwave.node.exploded.v1")),
                  "unknown event type 'io.fleetwave.node.exploded.v1'"),
              bad(
                  topic,
                  NODE,
                  edit(registered, j -> j.put("type", "io.fleetwave.node.registered.v2")),
                  "newer than this build understands"),
              bad(
                  topic,
                  NODE,
                  edit(registered, j -> ((ObjectNode) j.get("data")).remove("hostname")),
                  "hostname"),
              bad(
                  topic,
                  NODE,
                  edit(registered, j -> ((ObjectNode) j.get("data")).put("readOnlyRoot", "yes")),
                  "field 'readOnlyRoot'"),
              bad(
                  topic,
                  null,
                  EventCodec.encode(Events.envelope(NODE, 1, 1, Events.heartbeat(1))),
                  "record has no key"),
              bad(
                  topic,
                  "someone-else",
                  EventCodec.encode(Events.envelope(NODE, 1, 1, Events.heartbeat(1))),
                  "does not match the event subject 'dlq-0'"));
      topic.publish(
          Events.envelope(NODE, 1, 2, Events.inventory(Events.H100, 1, MigMode.DISABLED)));
      topic.publish(Events.envelope(NODE, 1, 3, Events.heartbeat(2)));

      await("the good events after the bad ones to be projected")
          .atMost(Duration.ofSeconds(30))
          .until(() -> ProjectionRows.isAt(NODE, 1, 3));
      await("every bad record on the dead-letter topic")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertDeadLettered(topic.deadLetters(), bad));
    }
    ApiReads.answer("/api/v1/nodes/" + NODE)
        .body("hostKind", equalTo("ubuntu"))
        .body("gpus.size()", equalTo(1));
    ApiReads.answer("/api/v1/nodes/" + NODE + "/events").body("items.seq", contains(2, 0));
    // seq 1 never arrived in a form that decodes: the node row counts it (heartbeats, such as
    // seq 3, are in last_seen and the position, not in the history).
    assertThat(ProjectionRows.count("SELECT missed_events FROM nodes WHERE name = '" + NODE + "'"))
        .isEqualTo(1);
  }

  private static void assertDeadLettered(
      List<ConsumerRecord<String, byte[]>> letters, List<Bad> bad) {
    for (Bad expected : bad) {
      ConsumerRecord<String, byte[]> letter =
          DeadLetters.letterOf(
              letters,
              expected.sent(),
              "the record expected to fail with '" + expected.reason() + "'");
      assertThat(header(letter, Topics.DLQ_REASON_HEADER)).contains(expected.reason());
      assertThat(header(letter, Topics.DLQ_TOPIC_HEADER)).isEqualTo(Topics.NODE_EVENTS);
      assertThat(letter.key()).isEqualTo(expected.key());
      assertThat(letter.value()).isEqualTo(expected.value());
    }
  }

  private static Bad bad(TopicClient topic, String key, byte[] value, String reason) {
    return new Bad(key, value, reason, topic.publishRawAsKeyedNode(key, value));
  }

  private static byte[] edit(Envelope<NodeEvent> envelope, Consumer<ObjectNode> change) {
    try {
      ObjectNode json = (ObjectNode) EventCodec.mapper().readTree(EventCodec.encode(envelope));
      change.accept(json);
      return EventCodec.mapper().writeValueAsBytes(json);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }
}
