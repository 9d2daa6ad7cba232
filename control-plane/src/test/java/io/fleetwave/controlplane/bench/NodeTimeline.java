package io.fleetwave.controlplane.bench;

import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What the rollout did to each node as seen on the topics, from the moment it is started: the first
 * desired-spec record per node (its Kafka timestamp: when the control plane sent the spec) and the
 * first SpecApplied per node (the agent's event time: when the node completed).
 */
final class NodeTimeline implements AutoCloseable {
  private static final byte[] SPEC_APPLIED =
      "io.fleetwave.node.spec-applied".getBytes(StandardCharsets.UTF_8);

  private final KafkaConsumer<String, byte[]> consumer;
  private final Map<String, Instant> specSent = new ConcurrentHashMap<>();
  private final Map<String, Instant> applied = new ConcurrentHashMap<>();
  private final Map<String, Instant> appliedRecorded = new ConcurrentHashMap<>();
  private final Map<String, List<Instant>> recordedUntilApplied = new ConcurrentHashMap<>();
  private final Poller poller;
  private volatile RuntimeException failure;

  NodeTimeline(String bootstrap) {
    consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                5000),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    List<TopicPartition> partitions =
        java.util.stream.Stream.of(Topics.NODE_EVENTS, Topics.NODE_DESIRED)
            .flatMap(
                topic ->
                    consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                        .map(p -> new TopicPartition(topic, p.partition())))
            .toList();
    consumer.assign(partitions);
    consumer.seekToEnd(partitions);
    partitions.forEach(consumer::position); // fix the start before the rollout begins
    poller = new Poller("bench-node-timeline", this::poll);
  }

  private void poll(BooleanSupplier running) {
    try {
      while (running.getAsBoolean()) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
          if (record.topic().equals(Topics.NODE_DESIRED)) {
            specSent.putIfAbsent(record.key(), Instant.ofEpochMilli(record.timestamp()));
          } else {
            Instant recorded = Instant.ofEpochMilli(record.timestamp());
            if (!applied.containsKey(record.key())) {
              recordedUntilApplied
                  .computeIfAbsent(
                      record.key(), node -> new java.util.concurrent.CopyOnWriteArrayList<>())
                  .add(recorded);
            }
            if (contains(record.value(), SPEC_APPLIED)
                && applied.putIfAbsent(record.key(), EventCodec.decode(record.value()).time())
                    == null) {
              appliedRecorded.put(record.key(), recorded);
            }
          }
        }
      }
    } catch (EventRejectedException | RuntimeException e) {
      failure = new IllegalStateException("reading the node topics failed: " + e, e);
    } finally {
      consumer.close();
    }
  }

  /** Cheap filter before decoding: most node events are heartbeats and inventories. */
  private static boolean contains(byte[] value, byte[] part) {
    outer:
    for (int i = 0; i <= value.length - part.length; i++) {
      for (int j = 0; j < part.length; j++) {
        if (value[i + j] != part[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  Map<String, Instant> specSent() {
    check();
    return Map.copyOf(specSent);
  }

  Map<String, Instant> applied() {
    check();
    return Map.copyOf(applied);
  }

  /**
   * The Kafka timestamp of each node's first SpecApplied record: when the agent handed it to its
   * producer, which is later than the event's own time by whatever the agent did in between.
   */
  Map<String, Instant> appliedRecorded() {
    check();
    return Map.copyOf(appliedRecorded);
  }

  /**
   * The Kafka timestamps of each node's event records up to and including its first SpecApplied, in
   * the order the node sent them: together with {@link #specSent}, how many events a node sent for
   * its apply and how far apart (an agent has one event in flight at a time).
   */
  Map<String, List<Instant>> recordedUntilApplied() {
    check();
    Map<String, List<Instant>> copy = new java.util.HashMap<>();
    recordedUntilApplied.forEach((node, times) -> copy.put(node, List.copyOf(times)));
    return copy;
  }

  private void check() {
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void close() {
    poller.close();
  }
}
