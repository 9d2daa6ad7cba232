package io.fleetwave.controlplane.spec;

import io.fleetwave.controlplane.kafka.KafkaClientConfig;
import java.time.Duration;
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
 * idempotent, acks=all, with the client's own bounds inside the caller's so Kafka gives up first,
 * and a short linger so the hundreds of records of one rollout round share requests.
 */
public final class AcknowledgedProducers {
  private AcknowledgedProducers() {}

  public static KafkaProducer<String, byte[]> create(
      Map<String, Object> kafkaConfig, Duration callerTimeout) {
    Map<String, Object> config = KafkaClientConfig.shared(kafkaConfig);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    int millis = (int) Math.max(1000, callerTimeout.toMillis());
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, millis / 2);
    config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, millis / 2);
    config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, millis);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 2);
    config.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    return new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
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
