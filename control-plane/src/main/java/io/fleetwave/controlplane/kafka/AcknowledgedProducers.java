package io.fleetwave.controlplane.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Producers for records the control plane must know are stored (specs, commands, rollout events):
 * idempotent, acks=all, with the client's own bounds inside the caller's so Kafka gives up first
 * and names why (a quarter of it waiting for metadata, half of it for the acknowledgement), and a
 * short linger so the hundreds of records of one rollout round share requests. While the broker is
 * away the client reconnects by itself (reconnect backoff) and, once no broker it knew answers,
 * bootstraps again from the configured servers (Kafka 4's metadata recovery): nothing here needs a
 * restart.
 */
public final class AcknowledgedProducers {
  private AcknowledgedProducers() {}

  public static KafkaProducer<String, byte[]> create(
      Map<String, Object> kafkaConfig, Duration callerTimeout) {
    Map<String, Object> config = KafkaClientConfig.shared(kafkaConfig);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    int millis = (int) Math.max(1000, callerTimeout.toMillis());
    // send() blocks up to max.block.ms while the topic's metadata is unknown (a broker outage
    // clears it), then the batch waits up to delivery.timeout.ms (>= request.timeout.ms + linger):
    // three quarters of the caller's bound at most, so the caller hears Kafka's own reason.
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, millis / 4);
    config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, millis / 4);
    config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, millis / 2);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 2);
    config.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    return new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
  }

  /**
   * Sends the records in order; each future completes with the broker's acknowledgement or its
   * refusal. Once a send fails at once (no metadata within max.block.ms: the broker is away), the
   * records after it are failed with the same cause without being sent, so a batch waits
   * max.block.ms once, not once per record.
   */
  public static List<CompletableFuture<RecordMetadata>> sendAll(
      KafkaProducer<String, byte[]> producer, List<ProducerRecord<String, byte[]>> records) {
    List<CompletableFuture<RecordMetadata>> acks = new ArrayList<>(records.size());
    Throwable refused = null;
    for (ProducerRecord<String, byte[]> record : records) {
      if (refused != null) {
        acks.add(CompletableFuture.failedFuture(refused));
        continue;
      }
      CompletableFuture<RecordMetadata> ack = send(producer, record);
      if (ack.isCompletedExceptionally()) {
        refused = ack.exceptionNow();
      }
      acks.add(ack);
    }
    return acks;
  }

  /** Sends one record; the future completes with the broker's acknowledgement or its refusal. */
  @SuppressWarnings("FutureReturnValueIgnored") // the callback completes the returned future
  public static CompletableFuture<RecordMetadata> send(
      KafkaProducer<String, byte[]> producer, ProducerRecord<String, byte[]> record) {
    CompletableFuture<RecordMetadata> acked = new CompletableFuture<>();
    try {
      producer.send(
          record,
          (metadata, error) -> {
            if (error != null) {
              acked.completeExceptionally(error);
            } else {
              acked.complete(metadata);
            }
          });
    } catch (RuntimeException e) {
      acked.completeExceptionally(e);
    }
    return acked;
  }
}
