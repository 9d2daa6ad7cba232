package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.controlplane.kafka.AcknowledgedProducers;
import io.fleetwave.controlplane.kafka.KafkaClientConfig;
import io.fleetwave.controlplane.kafka.TopicToEnd;
import io.fleetwave.core.rollout.decide.LoggedRecord;
import io.fleetwave.core.rollout.decide.RolloutFold;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.payload.FleetEvent;
import io.fleetwave.events.rollout.RolloutEvent;
import java.io.Serial;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * fleet.rollout-events: appends a rollout's events (key = rollout id, seq counting from 1, the
 * envelope's epoch = the appending leader's term), saying where Kafka put them; reads back the
 * records of the rollouts an engine taking over needs from where they start, or every rollout from
 * offset 0 for a rebuild. Every wait is bounded.
 */
public final class RolloutLog implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(RolloutLog.class);
  private static final URI SOURCE = URI.create("fleetwave:rollout-engine");

  private final Map<String, Object> kafka;
  private final Duration timeout;
  private final KafkaProducer<String, byte[]> producer;
  private final java.util.concurrent.atomic.AtomicLong scanned =
      new java.util.concurrent.atomic.AtomicLong();

  public RolloutLog(Map<String, Object> kafkaConfig, Duration timeout) {
    this.kafka = kafkaConfig;
    this.timeout = timeout;
    this.producer = AcknowledgedProducers.create(kafkaConfig, timeout);
  }

  /**
   * Wraps events as the rollout's next envelopes, seq following {@code lastSeq}, each carrying the
   * leader's {@code term} as its epoch (the fencing token {@link RolloutFold} checks).
   */
  public static List<Envelope<RolloutEvent>> envelopes(
      UUID rollout, long term, long lastSeq, List<RolloutEvent> events, Instant now) {
    List<Envelope<RolloutEvent>> out = new ArrayList<>(events.size());
    long seq = lastSeq;
    for (RolloutEvent event : events) {
      out.add(Envelope.of(SOURCE, rollout.toString(), now, term, ++seq, event));
    }
    return out;
  }

  /** Where Kafka put an appended record. */
  public record Position(int partition, long offset) {}

  /**
   * Sends the envelopes in order and returns once Kafka acknowledged all of them, with where each
   * was put.
   *
   * @throws RecordRefusedException when Kafka refuses a record for good (too large): sending it
   *     again cannot succeed
   */
  public List<Position> append(List<Envelope<RolloutEvent>> envelopes) {
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
      return acks.stream()
          .map(CompletableFuture::join)
          .map(metadata -> new Position(metadata.partition(), metadata.offset()))
          .toList();
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
      if (e.getCause() instanceof RecordTooLargeException tooLarge) {
        throw new RecordRefusedException(
            "Kafka refused a rollout event on "
                + Topics.ROLLOUT_EVENTS
                + " for good: "
                + tooLarge.getMessage(),
            tooLarge);
      }
      throw new RolloutLogException(
          "Kafka refused rollout events on " + Topics.ROLLOUT_EVENTS + ": " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RolloutLogException("interrupted while appending rollout events", e);
    }
  }

  /**
   * Every rollout's records from offset 0 to the end offsets taken now, in log order per rollout (a
   * rollout's records share its key, so its partition): the rebuild's input. Records that do not
   * decode are kept, named by their place, for the fold to judge; only a record whose key names no
   * rollout either is logged and skipped, since it belongs to none.
   */
  public Map<UUID, List<LoggedRecord>> readAll() {
    scanned.set(0);
    Map<UUID, List<LoggedRecord>> byRollout = new LinkedHashMap<>();
    try (KafkaConsumer<String, byte[]> consumer = consumer()) {
      TopicToEnd.read(
          consumer,
          Topics.ROLLOUT_EVENTS,
          timeout.multipliedBy(6),
          records -> {
            scanned.addAndGet(records.size());
            records.forEach(record -> collect(record, byRollout, rollout -> true));
          });
    } catch (TopicToEnd.TopicReadTimeoutException e) {
      throw new RolloutLogException(e.getMessage(), e);
    }
    return byRollout;
  }

  /**
   * The records of {@code rollouts} only, reading each partition in {@code from} from its offset
   * there to the end offsets taken now: what an engine taking over needs, whatever the topic's age.
   * Records of other rollouts are skipped by their key, without being decoded.
   */
  public Map<UUID, List<LoggedRecord>> read(Map<Integer, Long> from, Set<UUID> rollouts) {
    scanned.set(0);
    Map<UUID, List<LoggedRecord>> byRollout = new LinkedHashMap<>();
    if (from.isEmpty()) {
      return byRollout;
    }
    try (KafkaConsumer<String, byte[]> consumer = consumer()) {
      TopicToEnd.readFrom(
          consumer,
          Topics.ROLLOUT_EVENTS,
          from,
          timeout.multipliedBy(6),
          records -> {
            scanned.addAndGet(records.size());
            records.forEach(record -> collect(record, byRollout, rollouts::contains));
          });
    } catch (TopicToEnd.TopicReadTimeoutException e) {
      throw new RolloutLogException(e.getMessage(), e);
    }
    return byRollout;
  }

  /**
   * The highest leader's term these records carry (0 for none): a new leader's appends must carry a
   * higher one, or the fold ignores them.
   */
  public static long highestTerm(Map<UUID, List<LoggedRecord>> records) {
    return records.values().stream()
        .flatMap(List::stream)
        .filter(record -> record.envelope() != null)
        .mapToLong(record -> record.envelope().epoch())
        .max()
        .orElse(0);
  }

  /** How many records the last read consumed from Kafka, of every rollout (kept or skipped). */
  public long lastScanned() {
    return scanned.get();
  }

  private KafkaConsumer<String, byte[]> consumer() {
    return new KafkaConsumer<>(
        KafkaClientConfig.assigningConsumer(kafka, 5000),
        new StringDeserializer(),
        new ByteArrayDeserializer());
  }

  @SuppressWarnings("unchecked")
  private static void collect(
      ConsumerRecord<String, byte[]> record,
      Map<UUID, List<LoggedRecord>> byRollout,
      Predicate<UUID> wanted) {
    UUID keyed = rolloutOf(record.key());
    if (keyed != null && !wanted.test(keyed)) {
      return;
    }
    int bytes = record.value() == null ? 0 : record.value().length;
    LoggedRecord logged;
    UUID rollout = keyed;
    try {
      if (record.value() == null) {
        throw new EventRejectedException("the record has no value");
      }
      Envelope<FleetEvent> envelope = EventCodec.decode(record.value());
      rollout = rollout != null ? rollout : rolloutOf(envelope.subject());
      if (!(envelope.data() instanceof RolloutEvent)) {
        throw new EventRejectedException(envelope.type() + " is not a rollout event");
      }
      if (!envelope.subject().equals(String.valueOf(rollout))) {
        throw new EventRejectedException(
            "its subject '" + envelope.subject() + "' is not its key '" + record.key() + "'");
      }
      logged =
          LoggedRecord.decoded(
              record.topic(),
              record.partition(),
              record.offset(),
              bytes,
              (Envelope<RolloutEvent>) (Envelope<?>) envelope);
    } catch (EventRejectedException | IllegalArgumentException e) {
      logged =
          LoggedRecord.rejected(
              record.topic(), record.partition(), record.offset(), bytes, e.getMessage());
    }
    if (rollout == null || !wanted.test(rollout)) {
      if (rollout == null) {
        LOG.warnf("skipping the record at %s: its key names no rollout", where(record));
      }
      return;
    }
    byRollout.computeIfAbsent(rollout, k -> new ArrayList<>()).add(logged);
  }

  private static UUID rolloutOf(String text) {
    try {
      return text == null ? null : UUID.fromString(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static String where(ConsumerRecord<?, ?> record) {
    return record.topic() + "-" + record.partition() + "@" + record.offset();
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
  }

  /** Kafka refused a rollout event for good (it is too large): appending it again cannot help. */
  public static final class RecordRefusedException extends RolloutLogException {
    @Serial private static final long serialVersionUID = 1L;

    public RecordRefusedException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Kafka did not take or give back rollout events in time. */
  public static class RolloutLogException extends RuntimeException {
    @Serial private static final long serialVersionUID = 1L;

    public RolloutLogException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * The records of the rollouts the engine runs: the logged active ones, each partition read from
   * the first record of its oldest live rollout. Rollouts the API stored but the engine has not
   * logged yet need none (they are logged when taken up; one logged but not yet projected is read
   * like the others). A live rollout whose start is not known (logged before the projection kept
   * it) makes this read the whole topic, once: the takeover records its start.
   */
  Map<UUID, List<LoggedRecord>> readLive(List<RolloutProgressStore.ActiveRollout> active) {
    Set<UUID> live = new HashSet<>();
    Map<Integer, Long> from = new HashMap<>();
    boolean unknownStart = false;
    for (RolloutProgressStore.ActiveRollout rollout : active) {
      if (!rollout.logged() && rollout.logOffset() == null) {
        continue;
      }
      live.add(rollout.id());
      if (rollout.logOffset() == null) {
        unknownStart = true;
      } else {
        from.merge(rollout.logPartition(), rollout.logOffset(), Math::min);
      }
    }
    if (unknownStart) {
      Map<UUID, List<LoggedRecord>> all = readAll();
      all.keySet().retainAll(live);
      return all;
    }
    return read(from, live);
  }
}
