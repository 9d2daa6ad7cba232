package io.fleetwave.controlplane.facts;

import io.fleetwave.controlplane.kafka.AcknowledgedProducers;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventTypes;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.fact.ControlFact;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Appends facts to fleet.control-facts (acks=all, idempotent) and answers once Kafka acknowledged
 * them, within {@link #BOUND}. A fact is appended before the tables are changed, inside the
 * transaction that changes them: if Kafka refuses it, the transaction rolls back and the request
 * fails; if the transaction fails after the append, the fact is on the log and the replicas'
 * followers apply it ({@code ControlFactFollower}).
 */
@ApplicationScoped
public class ControlFactLog {
  /** How long a request waits for Kafka's acknowledgement. */
  public static final Duration BOUND = Duration.ofSeconds(10);

  private static final URI SOURCE = URI.create("fleetwave:control-plane");

  private final Map<String, Object> kafkaConfig;
  private final NodeControls controls;
  private KafkaProducer<String, byte[]> producer;

  public ControlFactLog(
      @Identifier("default-kafka-broker") Map<String, Object> kafkaConfig, NodeControls controls) {
    this.kafkaConfig = kafkaConfig;
    this.controls = controls;
  }

  /** A fact and what it is about (its subject, also the record key). */
  public record Subject(String subject, ControlFact fact) {}

  /**
   * The fact about {@code subject}, appended and acknowledged; continues on the caller's Vert.x
   * context (a transaction's connection), as the send itself runs on a worker thread (it blocks
   * while Kafka's metadata is unknown).
   *
   * @throws FactNotRecordedException (failed Uni) naming the topic and Kafka's reason
   */
  public Uni<Envelope<ControlFact>> append(String subject, ControlFact fact, Instant at) {
    return appendAll(List.of(new Subject(subject, fact)), at).map(List::getFirst);
  }

  /**
   * The facts, appended in order and all acknowledged (a rollout round's specs: sent together,
   * acknowledged in one wait); as {@link #append}, and failed as a whole when Kafka refuses any.
   *
   * @throws FactNotRecordedException (failed Uni) naming the first refused fact and the reason
   */
  public Uni<List<Envelope<ControlFact>>> appendAll(List<Subject> facts, Instant at) {
    return appendEnvelopes(
        facts.stream().map(f -> Envelope.of(SOURCE, f.subject(), at, 0, 0, f.fact())).toList());
  }

  /**
   * Facts whose ids the caller chose (a backfill's, derived from its rows), as {@link #appendAll}.
   */
  public Uni<List<Envelope<ControlFact>>> appendBackfill(List<FactBackfill> facts, Instant at) {
    return appendEnvelopes(
        facts.stream()
            .map(
                f ->
                    new Envelope<>(
                        f.factId(),
                        SOURCE,
                        EventTypes.typeOf(f.fact()),
                        f.subject(),
                        at,
                        0,
                        0,
                        f.fact()))
            .toList());
  }

  private Uni<List<Envelope<ControlFact>>> appendEnvelopes(List<Envelope<ControlFact>> envelopes) {
    if (envelopes.isEmpty()) {
      return Uni.createFrom().item(List.of());
    }
    List<ProducerRecord<String, byte[]>> records = envelopes.stream().map(this::record).toList();
    Envelope<ControlFact> first = envelopes.getFirst();
    Context caller = Vertx.currentContext();
    Uni<List<Envelope<ControlFact>>> acked =
        Uni.createFrom()
            .completionStage(() -> sendAll(envelopes, records))
            .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
            .ifNoItem()
            .after(BOUND)
            .failWith(
                () ->
                    new FactNotRecordedException(
                        "Kafka did not acknowledge "
                            + describe(first, envelopes.size())
                            + " within "
                            + BOUND.toSeconds()
                            + " s; nothing was changed",
                        null))
            .onFailure(e -> !(e instanceof FactNotRecordedException))
            .transform(
                e ->
                    new FactNotRecordedException(
                        "Kafka refused "
                            + describe(first, envelopes.size())
                            + ": "
                            + (e instanceof CompletionException && e.getCause() != null
                                ? e.getCause().getMessage()
                                : e.getMessage())
                            + "; nothing was changed",
                        e))
            .replaceWith(envelopes);
    return caller == null
        ? acked
        : acked.emitOn(command -> caller.runOnContext(ignored -> command.run()));
  }

  /**
   * Sends the records; completes once all are acknowledged, each fact then handed to this replica's
   * in-memory reads at its offset ({@link NodeControls#appended}).
   */
  private CompletableFuture<Void> sendAll(
      List<Envelope<ControlFact>> envelopes, List<ProducerRecord<String, byte[]>> records) {
    List<CompletableFuture<RecordMetadata>> acks =
        AcknowledgedProducers.sendAll(producer(), records);
    return CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new))
        .thenRun(
            () -> {
              for (int i = 0; i < envelopes.size(); i++) {
                controls.appended(acks.get(i).join().offset(), envelopes.get(i));
              }
            });
  }

  private ProducerRecord<String, byte[]> record(Envelope<ControlFact> envelope) {
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(Topics.CONTROL_FACTS, envelope.subject(), EventCodec.encode(envelope));
    record.headers().add("content-type", EventCodec.CONTENT_TYPE.getBytes(StandardCharsets.UTF_8));
    return record;
  }

  private static String describe(Envelope<ControlFact> envelope, int count) {
    return (count > 1 ? count + " facts, the first " : "the fact ")
        + envelope.type()
        + " about '"
        + envelope.subject()
        + "' on "
        + Topics.CONTROL_FACTS;
  }

  private synchronized KafkaProducer<String, byte[]> producer() {
    if (producer == null) {
      producer = AcknowledgedProducers.create(kafkaConfig, BOUND);
    }
    return producer;
  }

  @PreDestroy
  synchronized void close() {
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
    }
  }
}
