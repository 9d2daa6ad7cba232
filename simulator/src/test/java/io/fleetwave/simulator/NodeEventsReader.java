package io.fleetwave.simulator;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.FleetEvent;
import io.fleetwave.events.codec.EventCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a node-events topic from the start and decodes every record with the real codec. */
final class NodeEventsReader implements AutoCloseable {
  /** One decoded record with what Kafka carried around it. */
  record Received(
      String key, int partition, long offset, String contentType, Envelope<FleetEvent> envelope) {}

  private final KafkaConsumer<String, byte[]> consumer;
  private final List<Received> received = new ArrayList<>();

  NodeEventsReader(String bootstrapServers, String topic) {
    consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG,
                "reader-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed"),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    consumer.subscribe(List.of(topic));
  }

  /** Polls once (bounded) and returns everything read so far. */
  synchronized List<Received> poll() {
    for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
      var header = record.headers().lastHeader("content-type");
      try {
        received.add(
            new Received(
                record.key(),
                record.partition(),
                record.offset(),
                header == null ? null : new String(header.value(), StandardCharsets.UTF_8),
                EventCodec.decode(record.value())));
      } catch (EventRejectedException e) {
        throw new AssertionError("agent published an undecodable record: " + e.getMessage(), e);
      }
    }
    return List.copyOf(received);
  }

  @Override
  public void close() {
    consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
  }
}
