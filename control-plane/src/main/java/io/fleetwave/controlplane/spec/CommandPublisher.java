package io.fleetwave.controlplane.spec;

import io.fleetwave.controlplane.config.CommandsConfig;
import io.fleetwave.controlplane.kafka.AcknowledgedProducers;
import io.fleetwave.controlplane.kafka.KafkaReachability;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.codec.CommandCodec;
import io.fleetwave.events.codec.EventCodec;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Sends signed commands to fleet.node-desired / fleet.node-commands, keyed by node, and waits for
 * the broker's acknowledgement within {@code fleetwave.commands.send-timeout} (default 10 s); past
 * it the caller gets a {@link BrokerUnavailableException} (503 at the API). The producer is
 * idempotent with acks=all: an acknowledged record is on every in-sync replica. While the broker is
 * known to be away ({@link KafkaReachability}) nothing is sent and the caller gets the exception at
 * once, naming since when.
 */
@ApplicationScoped
public class CommandPublisher {
  private final Duration timeout;
  private final KafkaProducer<String, byte[]> producer;
  private final Supplier<Optional<KafkaReachability.Outage>> outage;

  @Inject
  public CommandPublisher(
      @Identifier("default-kafka-broker") Map<String, Object> kafkaConfig,
      CommandsConfig config,
      KafkaReachability reachability) {
    this(kafkaConfig, config.sendTimeout(), reachability::outage);
  }

  /** Without a reachability probe: every send waits for the broker within the timeout. */
  public CommandPublisher(Map<String, Object> kafkaConfig, Duration timeout) {
    this(kafkaConfig, timeout, Optional::empty);
  }

  CommandPublisher(
      Map<String, Object> kafkaConfig,
      Duration timeout,
      Supplier<Optional<KafkaReachability.Outage>> outage) {
    this.timeout = timeout;
    this.producer = AcknowledgedProducers.create(kafkaConfig, timeout);
    this.outage = outage;
  }

  /**
   * Completes once the broker acknowledged the record; fails with {@link
   * BrokerUnavailableException} otherwise.
   */
  public Uni<RecordMetadata> send(String topic, CommandEnvelope command) {
    return acknowledged(topic, List.of(command))
        .map(List::getFirst)
        .onFailure(e -> !(e instanceof BrokerUnavailableException))
        .transform(
            e -> unavailable(command.type() + " for node '" + command.subject() + "'", topic, e));
  }

  /**
   * Sends every command and completes once the broker acknowledged all of them, within one bound;
   * fails with {@link BrokerUnavailableException} otherwise (some may have been stored: they are
   * idempotent for agents).
   */
  public Uni<Void> sendAll(String topic, List<CommandEnvelope> commands) {
    if (commands.isEmpty()) {
      return Uni.createFrom().voidItem();
    }
    return acknowledged(topic, commands)
        .replaceWithVoid()
        .onFailure(e -> !(e instanceof BrokerUnavailableException))
        .transform(e -> unavailable(commands.size() + " command(s)", topic, e));
  }

  // whenComplete's own future is not kept: its callback hands both outcomes to the emitter.
  @SuppressWarnings("FutureReturnValueIgnored")
  private Uni<List<RecordMetadata>> acknowledged(String topic, List<CommandEnvelope> commands) {
    Optional<KafkaReachability.Outage> away = outage.get();
    if (away.isPresent()) {
      return Uni.createFrom()
          .failure(
              new BrokerUnavailableException(
                  away.get().reason() + "; nothing was sent to " + topic + ", retry later", null));
    }
    return Uni.createFrom()
        .<List<RecordMetadata>>emitter(
            emitter -> {
              // send() may block up to max.block.ms on metadata: never on an event-loop thread.
              List<ProducerRecord<String, byte[]>> records = new ArrayList<>(commands.size());
              for (CommandEnvelope command : commands) {
                ProducerRecord<String, byte[]> record =
                    new ProducerRecord<>(topic, command.subject(), CommandCodec.encode(command));
                record
                    .headers()
                    .add("content-type", EventCodec.CONTENT_TYPE.getBytes(StandardCharsets.UTF_8));
                records.add(record);
              }
              List<CompletableFuture<RecordMetadata>> acks =
                  AcknowledgedProducers.sendAll(producer, records);
              CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new))
                  .whenComplete(
                      (ignored, error) -> {
                        if (error != null) {
                          emitter.fail(error);
                        } else {
                          emitter.complete(acks.stream().map(CompletableFuture::join).toList());
                        }
                      });
            })
        .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
        .ifNoItem()
        .after(timeout)
        .failWith(() -> new IllegalStateException("no acknowledgement"));
  }

  private BrokerUnavailableException unavailable(String what, String topic, Throwable cause) {
    return new BrokerUnavailableException(
        "Kafka did not acknowledge "
            + what
            + " on "
            + topic
            + " within "
            + timeout.toSeconds()
            + " s ("
            + cause.getMessage()
            + "); nothing was changed, retry later",
        cause);
  }

  @PreDestroy
  void close() {
    producer.close(Duration.ofSeconds(5));
  }
}
