package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.controlplane.kafka.KafkaClientConfig;
import io.fleetwave.controlplane.kafka.TopicToEnd;
import io.fleetwave.controlplane.spec.AcknowledgedProducers;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.FleetEvent;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.rollout.RolloutEvent;
import java.io.Serial;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * fleet.rollout-events: appends a rollout's events (key = rollout id, seq counting from 1) and
 * reads every rollout back from offset 0 when an engine takes over. Every wait is bounded.
 */
public final class RolloutLog implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(RolloutLog.class);
  private static final URI SOURCE = URI.create("fleetwave:rollout-engine");

  private final Map<String, Object> kafka;
  private final Duration timeout;
  private final KafkaProducer<String, byte[]> producer;

  public RolloutLog(Map<String, Object> kafkaConfig, Duration timeout) {
    this.kafka = kafkaConfig;
    this.timeout = timeout;
    this.producer = AcknowledgedProducers.create(kafkaConfig, timeout);
  }

  /** Wraps events as the rollout's next envelopes, seq following {@code lastSeq}. */
  public static List<Envelope<RolloutEvent>> envelopes(
      UUID rollout, long lastSeq, List<RolloutEvent> events, Instant now) {
    List<Envelope<RolloutEvent>> out = new ArrayList<>(events.size());
    long seq = lastSeq;
    for (RolloutEvent event : events) {
      out.add(Envelope.of(SOURCE, rollout.toString(), now, 0, ++seq, event));
    }
    return out;
  }

  /** Sends the envelopes in order and returns once Kafka acknowledged all of them. */
  public void append(List<Envelope<RolloutEvent>> envelopes) {
    List<ProducerRecord<String, byte[]>> records = new ArrayList<>(envelopes.size());
    for (Envelope<RolloutEvent> envelope : envelopes) {
      ProducerRecord<String, byte[]> record =
          new ProducerRecord<>(
              Topics.ROLLOUT_EVENTS, envelope.subject(), EventCodec.encode(envelope));
      record
          .headers()
          .add("content-type", EventCodec.CONTENT_TYPE.getBytes(StandardCharsets.UTF_8));
      records.add(record);
    }
    List<CompletableFuture<RecordMetadata>> acks = AcknowledgedProducers.sendAll(producer, records);
    try {
      CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new RolloutLogException(
          "Kafka did not acknowledge "
              + envelopes.size()
              + " rollout event(s) on "
              + Topics.ROLLOUT_EVENTS
              + " within "
              + timeout.toSeconds()
              + " s",
          e);
    } catch (ExecutionException e) {
      throw new RolloutLogException(
          "Kafka refused rollout events on " + Topics.ROLLOUT_EVENTS + ": " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RolloutLogException("interrupted while appending rollout events", e);
    }
  }

  /**
   * Every rollout's events from offset 0 to the end offsets taken now, in seq order per rollout.
   * Records that do not decode are logged and skipped: they were never written by an engine.
   */
  public Map<UUID, List<Envelope<RolloutEvent>>> readAll() {
    Map<UUID, List<Envelope<RolloutEvent>>> byRollout = new LinkedHashMap<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            KafkaClientConfig.assigningConsumer(kafka, 5000),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      TopicToEnd.read(
          consumer,
          Topics.ROLLOUT_EVENTS,
          timeout.multipliedBy(6),
          records -> records.forEach(record -> decode(record, byRollout)));
    } catch (TopicToEnd.TopicReadTimeoutException e) {
      throw new RolloutLogException(e.getMessage(), e);
    }
    byRollout.values().forEach(list -> list.sort((a, b) -> Long.compare(a.seq(), b.seq())));
    return byRollout;
  }

  @SuppressWarnings("unchecked")
  private static void decode(
      ConsumerRecord<String, byte[]> record, Map<UUID, List<Envelope<RolloutEvent>>> byRollout) {
    try {
      Envelope<FleetEvent> envelope = EventCodec.decode(record.value());
      if (envelope.data() instanceof RolloutEvent) {
        UUID rollout = UUID.fromString(envelope.subject());
        byRollout
            .computeIfAbsent(rollout, k -> new ArrayList<>())
            .add((Envelope<RolloutEvent>) (Envelope<?>) envelope);
      } else {
        LOG.warnf("skipping %s at %s: not a rollout event", envelope.type(), where(record));
      }
    } catch (EventRejectedException | IllegalArgumentException e) {
      LOG.warnf("skipping an undecodable record at %s: %s", where(record), e.getMessage());
    }
  }

  private static String where(ConsumerRecord<?, ?> record) {
    return record.topic() + "-" + record.partition() + "@" + record.offset();
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
  }

  /** Kafka did not take or give back rollout events in time. */
  public static final class RolloutLogException extends RuntimeException {
    @Serial private static final long serialVersionUID = 1L;

    public RolloutLogException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
