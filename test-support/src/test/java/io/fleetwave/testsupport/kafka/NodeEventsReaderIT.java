package io.fleetwave.testsupport.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.testfixtures.events.NodeRegisteredBuilder;
import io.fleetwave.testsupport.services.KafkaExtension;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The one node-events reader against a real broker: what it decodes, orders and refuses. */
@ExtendWith(KafkaExtension.class)
class NodeEventsReaderIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final URI SOURCE = URI.create("urn:fleetwave:test");

  @Test
  void readsEveryPartitionFromTheStartAndOrdersANodesEventsByEpochThenSeq(KafkaBroker kafka)
      throws Exception {
    kafka.createTopics(3, "it.reader.ordered");
    NodeRegistered facts = NodeRegisteredBuilder.forHost("n-1", HostKind.TALOS).build();
    try (KafkaProducer<String, byte[]> producer =
        PlainProducers.ofBytes(kafka.bootstrapServers())) {
      // Published out of order: a later run's event first, then the earlier run's two.
      send(producer, "it.reader.ordered", envelope("n-1", 2, 0, new Heartbeat("b2", 1)));
      send(producer, "it.reader.ordered", envelope("n-1", 1, 1, new Heartbeat("b1", 5)));
      send(producer, "it.reader.ordered", envelope("n-1", 1, 0, facts));
      send(producer, "it.reader.ordered", envelope("n-2", 1, 0, new Heartbeat("other", 1)));
    }
    try (NodeEventsReader reader =
        new NodeEventsReader(kafka.bootstrapServers(), "it.reader.ordered")) {
      await().atMost(BOUND).until(() -> reader.poll().size() == 4);

      assertThat(reader.of("n-1"))
          .extracting(e -> e.epoch() + "/" + e.seq())
          .containsExactly("1/0", "1/1", "2/0");
      assertThat(reader.of("n-1", Heartbeat.class))
          .extracting(Heartbeat::bootId)
          .containsExactly("b1", "b2");
      assertThat(reader.events(NodeRegistered.class)).containsExactly(facts);
      assertThat(reader.poll())
          .allSatisfy(r -> assertThat(r.contentType()).isEqualTo(EventCodec.CONTENT_TYPE))
          .extracting(NodeEventsReader.Received::key)
          .containsOnly("n-1", "n-2");
    }
  }

  @Test
  void anUndecodableRecordFailsTheTestNamingWhereItIs(KafkaBroker kafka) throws Exception {
    kafka.createTopics(1, "it.reader.garbage");
    try (KafkaProducer<String, byte[]> producer =
        PlainProducers.ofBytes(kafka.bootstrapServers())) {
      producer
          .send(
              new ProducerRecord<>(
                  "it.reader.garbage",
                  "n-1",
                  "{not a cloud event".getBytes(StandardCharsets.UTF_8)))
          .get(30, TimeUnit.SECONDS);
    }
    try (NodeEventsReader reader =
        new NodeEventsReader(kafka.bootstrapServers(), "it.reader.garbage")) {
      assertThatThrownBy(() -> await().atMost(BOUND).until(() -> !reader.poll().isEmpty()))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("undecodable record at it.reader.garbage-0@0");
    }
  }

  @Test
  void aTopicThatDoesNotExistIsNamed(KafkaBroker kafka) {
    assertThatThrownBy(() -> new NodeEventsReader(kafka.bootstrapServers(), "it.reader.missing"))
        .hasMessageContaining("it.reader.missing");
  }

  private static Envelope<NodeEvent> envelope(String node, long epoch, long seq, NodeEvent data) {
    return Envelope.of(SOURCE, node, Instant.parse("2026-11-01T10:00:00Z"), epoch, seq, data);
  }

  private static void send(
      KafkaProducer<String, byte[]> producer, String topic, Envelope<NodeEvent> event)
      throws Exception {
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(topic, event.subject(), EventCodec.encode(event));
    record.headers().add("content-type", EventCodec.CONTENT_TYPE.getBytes(StandardCharsets.UTF_8));
    producer.send(record).get(30, TimeUnit.SECONDS);
  }
}
