package io.fleetwave.agent.publish;

import io.fleetwave.agent.kafka.KafkaRefusal;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.security.EnrolledKey;
import io.fleetwave.events.security.NodeEventSigner;
import io.fleetwave.events.security.NodeEventVerifier;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The epoch of a node's newest event on the topic, for an agent that keeps no epoch on its host
 * (read-only root: Talos, COS). It reads only the node's own partition (the producer's partition
 * for its key), backwards from the end in growing windows, so a busy partition costs a few reads
 * and not the whole log, and stops at the first window that holds an event of the node.
 *
 * <p>Whoever can write to the topic can put a record under the node's name, so with the node's own
 * keys given only a record one of them signed (and whose subject is the node) counts; any other is
 * skipped and counted in a warning. A planted record with a huge epoch would otherwise make every
 * later run's epoch wrap round, and the projection would refuse the node's events for good.
 */
public final class LastEpochOnTopic {
  private static final System.Logger LOG = System.getLogger(LastEpochOnTopic.class.getName());
  private static final int FIRST_WINDOW = 500;

  private LastEpochOnTopic() {}

  /**
   * @param overrides the operator's client settings (security), as the producer gets them
   * @param ownKeys the node's own keys by id ({@link io.fleetwave.agent.identity.NodeIdentity});
   *     empty for an agent without an identity (no --control-plane, development only), which cannot
   *     tell its own records from planted ones and takes any record keyed with its name
   * @return the newest epoch of the node's events, or empty when the partition holds none
   * @throws IllegalStateException naming the servers, topic, node and bound when the broker does
   *     not answer, or the partition is not read back far enough, within {@code bound}
   */
  public static OptionalLong find(
      String bootstrapServers,
      String topic,
      String nodeName,
      Map<String, Object> overrides,
      Duration bound,
      Optional<Map<String, EnrolledKey>> ownKeys) {
    long deadline = System.nanoTime() + bound.toNanos();
    Map<String, Object> config = new HashMap<>(overrides);
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, "fleetwave-agent-epoch");
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) bound.toMillis());
    config.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(bound.toMillis(), 10_000));
    byte[] key = nodeName.getBytes(StandardCharsets.UTF_8);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> partitions = consumer.partitionsFor(topic, remaining(deadline));
      if (partitions.isEmpty()) {
        throw new IllegalStateException("topic " + topic + " does not exist");
      }
      TopicPartition partition =
          new TopicPartition(topic, BuiltInPartitioner.partitionForKey(key, partitions.size()));
      consumer.assign(List.of(partition));
      long begin =
          consumer.beginningOffsets(List.of(partition), remaining(deadline)).get(partition);
      long end = consumer.endOffsets(List.of(partition), remaining(deadline)).get(partition);
      long window = FIRST_WINDOW;
      while (end > begin) {
        long start = Math.max(begin, end - window);
        OptionalLong found =
            newestEpochIn(consumer, partition, start, end, nodeName, ownKeys, deadline);
        if (found.isPresent()) {
          return found;
        }
        end = start;
        window *= 2;
      }
      return OptionalLong.empty();
    } catch (KafkaException | IllegalStateException e) {
      throw new IllegalStateException(
          "could not read the last epoch of node "
              + nodeName
              + " from "
              + topic
              + " at "
              + bootstrapServers
              + " within "
              + bound
              + ": "
              + KafkaRefusal.of(e).map(why -> "the broker " + why).orElse(e.getMessage()),
          e);
    }
  }

  private static OptionalLong newestEpochIn(
      KafkaConsumer<byte[], byte[]> consumer,
      TopicPartition partition,
      long start,
      long end,
      String nodeName,
      Optional<Map<String, EnrolledKey>> ownKeys,
      long deadline) {
    byte[] key = nodeName.getBytes(StandardCharsets.UTF_8);
    consumer.seek(partition, start);
    long newest = -1;
    int skipped = 0;
    String lastSkipped = null;
    while (consumer.position(partition, remaining(deadline)) < end) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "partition " + partition + " not read back to offset " + start + " in time");
      }
      for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
        if (record.offset() >= end || !Arrays.equals(record.key(), key)) {
          continue;
        }
        Optional<String> refusal = ownKeys.flatMap(keys -> notOwn(record, nodeName, keys));
        if (refusal.isPresent()) {
          skipped++;
          lastSkipped = "offset " + record.offset() + ": " + refusal.get();
          continue;
        }
        try {
          var event = EventCodec.decode(record.value());
          if (event.subject().equals(nodeName)) {
            newest = Math.max(newest, event.epoch());
          }
        } catch (EventRejectedException e) {
          // Not a readable event of this node: the projection dead-letters it; not an epoch.
        }
      }
    }
    if (skipped > 0) {
      LOG.log(
          Level.WARNING,
          "node {0}: {1} record(s) under its name in {2} from offset {3} are not signed by its own"
              + " keys and do not count for its epoch (last: {4})",
          nodeName,
          skipped,
          partition,
          start,
          lastSkipped);
    }
    return newest < 0 ? OptionalLong.empty() : OptionalLong.of(newest);
  }

  /** Why the record is not the node's own, if it is not. */
  private static Optional<String> notOwn(
      ConsumerRecord<byte[], byte[]> record, String nodeName, Map<String, EnrolledKey> ownKeys) {
    return NodeEventVerifier.verify(
            nodeName,
            record.value(),
            header(record, NodeEventSigner.KEY_ID_HEADER),
            header(record, NodeEventSigner.SIGNATURE_HEADER),
            ownKeys::get)
        .map(NodeEventVerifier.Refused::reason);
  }

  private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  private static Duration remaining(long deadline) {
    return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
  }
}
