package io.fleetwave.controlplane.spec;

import io.fleetwave.controlplane.api.ProblemException;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.command.CommandCodec;
import io.fleetwave.events.command.CommandEnvelope;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Sends signed commands to fleet.node-desired / fleet.node-commands, keyed by node, and waits for
 * the broker's acknowledgement within {@code fleetwave.commands.send-timeout} (default 10 s); past
 * it the caller gets a 503 problem. The producer is idempotent with acks=all: an acknowledged
 * record is on every in-sync replica.
 */
@ApplicationScoped
public class CommandPublisher {
  private final Duration timeout;
  private final KafkaProducer<String, byte[]> producer;

  public CommandPublisher(
      @Identifier("default-kafka-broker") Map<String, Object> kafkaConfig,
      @ConfigProperty(name = "fleetwave.commands.send-timeout", defaultValue = "10s")
          Duration timeout) {
    this.timeout = timeout;
    Map<String, Object> config = new HashMap<>(kafkaConfig);
    config.keySet().removeIf(key -> key.startsWith("group.") || key.contains("deserializer"));
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    // The producer's own bounds sit inside the caller's, so it gives up before the caller does.
    int millis = (int) Math.max(1000, timeout.toMillis());
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, millis / 2);
    config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, millis / 2);
    config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, millis);
    // A rollout sends hundreds of specs at once: a short linger lets them share requests.
    config.put(ProducerConfig.LINGER_MS_CONFIG, 2);
    config.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    this.producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
  }

  /** Completes once the broker acknowledged the record; fails with a 503 problem otherwise. */
  public Uni<RecordMetadata> send(String topic, CommandEnvelope command) {
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(topic, command.subject(), CommandCodec.encode(command));
    record.headers().add("content-type", EventCodec.CONTENT_TYPE.getBytes(StandardCharsets.UTF_8));
    return Uni.createFrom()
        .<RecordMetadata>emitter(
            emitter -> {
              // send() may block up to max.block.ms on metadata: never on an event-loop thread.
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
              acked.whenComplete(
                  (metadata, error) -> {
                    if (error != null) {
                      emitter.fail(error);
                    } else {
                      emitter.complete(metadata);
                    }
                  });
            })
        .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
        .ifNoItem()
        .after(timeout)
        .failWith(() -> new IllegalStateException("no acknowledgement within " + timeout))
        .onFailure(e -> !(e instanceof ProblemException))
        .transform(
            e ->
                new ProblemException(
                    503,
                    "broker-unavailable",
                    "Service unavailable",
                    "Kafka did not acknowledge "
                        + command.type()
                        + " for node '"
                        + command.subject()
                        + "' on "
                        + topic
                        + " within "
                        + timeout.toSeconds()
                        + " s ("
                        + e.getMessage()
                        + "); nothing was changed, retry later"));
  }

  /**
   * Sends every command and completes once the broker acknowledged all of them, within one bound;
   * fails with a 503 problem naming how many were not acknowledged.
   */
  public Uni<Void> sendAll(String topic, java.util.List<CommandEnvelope> commands) {
    if (commands.isEmpty()) {
      return Uni.createFrom().voidItem();
    }
    return Uni.createFrom()
        .<Void>emitter(
            emitter -> {
              java.util.List<CompletableFuture<RecordMetadata>> acks =
                  new java.util.ArrayList<>(commands.size());
              for (CommandEnvelope command : commands) {
                ProducerRecord<String, byte[]> record =
                    new ProducerRecord<>(topic, command.subject(), CommandCodec.encode(command));
                record
                    .headers()
                    .add("content-type", EventCodec.CONTENT_TYPE.getBytes(StandardCharsets.UTF_8));
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
                acks.add(acked);
              }
              CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new))
                  .whenComplete(
                      (ignored, error) -> {
                        if (error != null) {
                          emitter.fail(error);
                        } else {
                          emitter.complete(null);
                        }
                      });
            })
        .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
        .ifNoItem()
        .after(timeout)
        .failWith(() -> new IllegalStateException("no acknowledgement within " + timeout))
        .onFailure(e -> !(e instanceof ProblemException))
        .transform(
            e ->
                new ProblemException(
                    503,
                    "broker-unavailable",
                    "Service unavailable",
                    "Kafka did not acknowledge all of "
                        + commands.size()
                        + " command(s) on "
                        + topic
                        + " within "
                        + timeout.toSeconds()
                        + " s ("
                        + e.getMessage()
                        + "); nothing was changed, retry later"));
  }

  @PreDestroy
  void close() {
    producer.close(Duration.ofSeconds(5));
  }
}
