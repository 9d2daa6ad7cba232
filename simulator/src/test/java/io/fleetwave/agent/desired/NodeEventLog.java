package io.fleetwave.agent.desired;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.FleetEvent;
import io.fleetwave.events.codec.EventCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Everything the agents published on the node-events topic, decoded with the real codec. */
final class NodeEventLog implements AutoCloseable {
  private final KafkaConsumer<String, byte[]> consumer;
  private final List<Envelope<FleetEvent>> received = new ArrayList<>();

  NodeEventLog(String bootstrapServers, String topic) {
    consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic).stream()
            .map(p -> new TopicPartition(topic, p.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /** Polls once (bounded) and returns the events of one node so far, in (epoch, seq) order. */
  synchronized List<Envelope<FleetEvent>> of(String node) {
    for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
      try {
        received.add(EventCodec.decode(record.value()));
      } catch (EventRejectedException e) {
        throw new AssertionError("agent published an undecodable record: " + e.getMessage(), e);
      }
    }
    return received.stream()
        .filter(e -> e.subject().equals(node))
        .sorted(
            (a, b) ->
                a.epoch() != b.epoch()
                    ? Long.compare(a.epoch(), b.epoch())
                    : Long.compare(a.seq(), b.seq()))
        .toList();
  }

  /** The payloads of one node's events of type {@code type}. */
  <T> List<T> of(String node, Class<T> type) {
    return of(node).stream().map(Envelope::data).filter(type::isInstance).map(type::cast).toList();
  }

  @Override
  public void close() {
    consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
  }
}
