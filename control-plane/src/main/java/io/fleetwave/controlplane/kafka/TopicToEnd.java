package io.fleetwave.controlplane.kafka;

import io.fleetwave.controlplane.time.Deadline;
import java.io.Serial;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Reads a whole topic once: assigns every partition, seeks to the beginning, takes the end offsets
 * as of now and polls until every partition's position has reached its end. Records appended after
 * the end offsets were taken are not handed over, so the result is the topic as it stood at the
 * start. The whole read, every Kafka call included, is bounded by one timeout.
 */
public final class TopicToEnd {
  private static final Duration POLL = Duration.ofMillis(200);

  private TopicToEnd() {}

  /**
   * Hands each poll's records below the end offsets to {@code batches} (in offset order per
   * partition; a batch may be empty) and returns the end offsets read up to.
   *
   * @param consumer a consumer without a group; it is left assigned at the end offsets
   * @throws TopicReadTimeoutException naming the topic, the bound and the stage when the read does
   *     not finish within {@code timeout}
   */
  public static <K, V> Map<TopicPartition, Long> read(
      KafkaConsumer<K, V> consumer,
      String topic,
      Duration timeout,
      Consumer<List<ConsumerRecord<K, V>>> batches) {
    Deadline<TopicReadTimeoutException> bound = bound(topic, timeout);
    try {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, bound.remaining("listing its partitions")).stream()
              .map(info -> new TopicPartition(info.topic(), info.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      return toEnd(consumer, partitions, bound, batches);
    } catch (TimeoutException e) {
      throw bound.expired("Kafka: " + e.getMessage());
    }
  }

  /**
   * Like {@link #read(KafkaConsumer, String, Duration, Consumer)}, but only the partitions named in
   * {@code from}, each from its offset there: the tail of a topic, not its whole history.
   */
  public static <K, V> Map<TopicPartition, Long> readFrom(
      KafkaConsumer<K, V> consumer,
      String topic,
      Map<Integer, Long> from,
      Duration timeout,
      Consumer<List<ConsumerRecord<K, V>>> batches) {
    Deadline<TopicReadTimeoutException> bound = bound(topic, timeout);
    try {
      List<TopicPartition> partitions =
          from.keySet().stream().sorted().map(p -> new TopicPartition(topic, p)).toList();
      consumer.assign(partitions);
      for (TopicPartition partition : partitions) {
        consumer.seek(partition, from.get(partition.partition()));
      }
      return toEnd(consumer, partitions, bound, batches);
    } catch (TimeoutException e) {
      throw bound.expired("Kafka: " + e.getMessage());
    }
  }

  private static <K, V> Map<TopicPartition, Long> toEnd(
      KafkaConsumer<K, V> consumer,
      List<TopicPartition> partitions,
      Deadline<TopicReadTimeoutException> bound,
      Consumer<List<ConsumerRecord<K, V>>> batches) {
    Map<TopicPartition, Long> ends =
        consumer.endOffsets(partitions, bound.remaining("reading its end offsets"));
    while (!caughtUp(consumer, ends, bound)) {
      List<ConsumerRecord<K, V>> batch = new ArrayList<>();
      for (ConsumerRecord<K, V> record : consumer.poll(POLL)) {
        if (record.offset() < ends.get(new TopicPartition(record.topic(), record.partition()))) {
          batch.add(record);
        }
      }
      batches.accept(batch);
      bound.remaining("polling");
    }
    return ends;
  }

  /** Every record of the topic as it stands now, in offset order per partition. */
  public static <K, V> List<ConsumerRecord<K, V>> readAll(
      KafkaConsumer<K, V> consumer, String topic, Duration timeout) {
    List<ConsumerRecord<K, V>> records = new ArrayList<>();
    read(consumer, topic, timeout, records::addAll);
    return records;
  }

  private static boolean caughtUp(
      KafkaConsumer<?, ?> consumer,
      Map<TopicPartition, Long> ends,
      Deadline<TopicReadTimeoutException> bound) {
    for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
      if (consumer.position(end.getKey(), bound.remaining("reading positions")) < end.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** The read's end time; a stage asking past it fails naming the topic, the bound and itself. */
  private static Deadline<TopicReadTimeoutException> bound(String topic, Duration total) {
    return new Deadline<>(
        total,
        stage ->
            new TopicReadTimeoutException(
                "could not read "
                    + topic
                    + " to its end within "
                    + seconds(total)
                    + " ("
                    + stage
                    + ")"));
  }

  private static String seconds(Duration duration) {
    return duration.toMillis() % 1000 == 0
        ? duration.toSeconds() + " s"
        : duration.toMillis() / 1000.0 + " s";
  }

  /** A topic was not read to its end within the bound. */
  public static final class TopicReadTimeoutException extends RuntimeException {
    @Serial private static final long serialVersionUID = 1L;

    public TopicReadTimeoutException(String message) {
      super(message);
    }
  }
}
