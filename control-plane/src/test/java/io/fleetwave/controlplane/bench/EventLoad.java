package io.fleetwave.controlplane.bench;

import io.fleetwave.controlplane.fixtures.AgentProducers;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;

/** Publishes the benchmark's events the way agents do: idempotent, acks=all, key = node. */
final class EventLoad {
  private EventLoad() {}

  static KafkaProducer<String, byte[]> producer(String bootstrap) {
    return AgentProducers.create(
        bootstrap,
        Map.of(
            ProducerConfig.LINGER_MS_CONFIG,
            5,
            ProducerConfig.BATCH_SIZE_CONFIG,
            256 * 1024,
            ProducerConfig.MAX_BLOCK_MS_CONFIG,
            60_000));
  }

  private static ProducerRecord<String, byte[]> unsigned(int node, long seq) {
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(
            Topics.NODE_EVENTS, BenchFleet.nodeName(node), BenchFleet.encoded(node, seq));
    record
        .headers()
        .add(
            new RecordHeader(
                "content-type", EventCodec.CONTENT_TYPE.getBytes(StandardCharsets.UTF_8)));
    return record;
  }

  /** Event {@code seq} of node {@code node}, signed by the node's key. */
  static ProducerRecord<String, byte[]> record(int node, long seq, BenchKeys keys) {
    return keys.sign(node, unsigned(node, seq));
  }

  /** Publishes every event, interleaving nodes as a fleet does; returns events per second. */
  // Bulk load, fire and forget: throughput is what is measured; flush() waits for every send.
  @SuppressWarnings("FutureReturnValueIgnored")
  static double publishAll(String bootstrap, ProjectionBench.BenchSettings settings, BenchKeys keys)
      throws Exception {
    long start = System.nanoTime();
    try (KafkaProducer<String, byte[]> producer = producer(bootstrap)) {
      for (long seq = 0; seq < settings.eventsPerNode(); seq++) {
        for (int node = 0; node < settings.nodes(); node++) {
          producer.send(record(node, seq, keys));
        }
      }
      producer.flush();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf("published %,d events in %.1f s%n", settings.totalEvents(), seconds);
    return settings.totalEvents() / seconds;
  }

  static void awaitQuietly(Thread thread) throws InterruptedException {
    thread.join(TimeUnit.SECONDS.toMillis(30));
  }
}
