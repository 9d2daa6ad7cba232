package io.fleetwave.controlplane.bench;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** The baseline for latency: a bare produce-to-consume round trip on the same broker. */
final class RoundTrip implements AutoCloseable {
  static final String TOPIC = "bench.roundtrip";

  private final KafkaConsumer<String, byte[]> consumer;
  private final ConcurrentLinkedQueue<Long> delaysMicros = new ConcurrentLinkedQueue<>();
  private final Poller poller;

  RoundTrip(String bootstrap) {
    consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "bench-roundtrip",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest"),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    consumer.subscribe(List.of(TOPIC));
    while (consumer.assignment().isEmpty()) {
      consumer.poll(Duration.ofMillis(100));
    }
    consumer.seekToEnd(consumer.assignment());
    consumer.assignment().forEach(consumer::position);
    poller = new Poller("bench-roundtrip", this::poll);
  }

  private void poll(BooleanSupplier running) {
    while (running.getAsBoolean()) {
      for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
        long sent = ByteBuffer.wrap(record.value()).getLong();
        delaysMicros.add((System.nanoTime() - sent) / 1000);
      }
    }
    consumer.close();
  }

  // Not awaited: the round trip is measured by reading the record back.
  @SuppressWarnings("FutureReturnValueIgnored")
  static void send(KafkaProducer<String, byte[]> producer, int key) {
    byte[] now = ByteBuffer.allocate(Long.BYTES).putLong(System.nanoTime()).array();
    producer.send(new ProducerRecord<>(TOPIC, "rt-" + key, now));
  }

  /** Forgets the round trips so far: the next result counts from here (after a warm-up). */
  void clear() {
    delaysMicros.clear();
  }

  Percentiles result() {
    return Percentiles.of(delaysMicros.stream().mapToLong(Long::longValue).toArray());
  }

  @Override
  public void close() {
    poller.close();
  }
}
