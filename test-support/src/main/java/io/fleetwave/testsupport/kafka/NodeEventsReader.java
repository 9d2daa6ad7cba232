package io.fleetwave.testsupport.kafka;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.payload.FleetEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a node-events topic from its start and decodes every record with the real codec; a record
 * that does not decode fails the test. Each call polls once (bounded) and answers from everything
 * read so far, so that it can stand in an {@code await().until(...)}.
 *
 * <p>It takes every partition itself (no consumer group): readers never share or commit anything.
 */
public final class NodeEventsReader implements AutoCloseable {
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Comparator<Envelope<FleetEvent>> EPOCH_THEN_SEQ =
      Comparator.<Envelope<FleetEvent>>comparingLong(Envelope::epoch)
          .thenComparingLong(Envelope::seq);

  /** One decoded record with what Kafka carried around it. */
  public record Received(
      String key, int partition, long offset, String contentType, Envelope<FleetEvent> envelope) {}

  private final KafkaConsumer<String, byte[]> consumer;
  private final List<Received> received = new ArrayList<>();

  /** The topic must exist (the test created it). */
  public NodeEventsReader(String bootstrapServers, String topic) {
    consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed"),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic).stream()
            .map(p -> new TopicPartition(topic, p.partition()))
            .toList();
    if (partitions.isEmpty()) {
      consumer.close(CloseOptions.timeout(Duration.ZERO));
      throw new IllegalStateException("topic " + topic + " does not exist: create it first");
    }
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /** Polls once (bounded) and returns every record read so far, with its key and position. */
  public synchronized List<Received> poll() {
    readOnce();
    return List.copyOf(received);
  }

  /**
   * Polls once (bounded) and returns only what this poll read: for a test that folds a large topic
   * as it goes instead of looking at all of it on every check.
   */
  public synchronized List<Received> pollNew() {
    int before = received.size();
    readOnce();
    return List.copyOf(received.subList(before, received.size()));
  }

  private void readOnce() {
    for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
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
        throw new AssertionError(
            "undecodable record at "
                + record.topic()
                + "-"
                + record.partition()
                + "@"
                + record.offset()
                + ": "
                + e.getMessage(),
            e);
      }
    }
  }

  /** Polls once and returns every event read so far, in the order read. */
  public List<Envelope<FleetEvent>> events() {
    return poll().stream().map(Received::envelope).toList();
  }

  /** Polls once and returns the payloads of type {@code type} read so far, in the order read. */
  public <T> List<T> events(Class<T> type) {
    return events().stream().map(Envelope::data).filter(type::isInstance).map(type::cast).toList();
  }

  /** Polls once and returns the events of one node so far, in (epoch, seq) order. */
  public List<Envelope<FleetEvent>> of(String node) {
    return events().stream().filter(e -> e.subject().equals(node)).sorted(EPOCH_THEN_SEQ).toList();
  }

  /** The payloads of one node's events of type {@code type}, in (epoch, seq) order. */
  public <T> List<T> of(String node, Class<T> type) {
    return of(node).stream().map(Envelope::data).filter(type::isInstance).map(type::cast).toList();
  }

  /**
   * The payloads of one run (epoch) of a node, in seq order, each envelope once: a crashed run's
   * spool is delivered again by the next run, the same envelope twice, which the projection applies
   * once; so do the tests.
   */
  public List<FleetEvent> payloads(String node, long epoch) {
    return of(node).stream()
        .filter(e -> e.epoch() == epoch)
        .distinct()
        .map(Envelope::data)
        .toList();
  }

  /** When the node's first event of type {@code type} happened (its envelope's time). */
  public Instant firstTime(String node, Class<? extends FleetEvent> type) {
    return of(node).stream()
        .filter(e -> type.isInstance(e.data()))
        .map(Envelope::time)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " of " + node));
  }

  @Override
  public void close() {
    consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
  }
}
