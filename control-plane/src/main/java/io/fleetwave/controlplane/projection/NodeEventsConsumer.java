package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.config.ProjectionConfig;
import io.fleetwave.controlplane.database.DatabaseFailures;
import io.fleetwave.controlplane.kubernetes.GateLabels;
import io.fleetwave.controlplane.logging.LogContext;
import io.fleetwave.core.projection.BatchChanges;
import io.fleetwave.core.projection.DecodedRecord;
import io.fleetwave.core.projection.Rejection;
import io.quarkus.runtime.ShutdownEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.smallrye.reactive.messaging.kafka.KafkaRecord;
import io.smallrye.reactive.messaging.kafka.KafkaRecordBatch;
import io.smallrye.reactive.messaging.kafka.api.IncomingKafkaRecordMetadata;
import io.vertx.pgclient.PgException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Consumes fleet.node-events in batches: refused records (not signed by their node's enrolled key,
 * or malformed) go to the dead-letter topic, the rest are applied in one transaction, and only then
 * is the batch acknowledged (its offsets committed). At-least-once delivery plus the idempotent
 * apply makes the projection exactly once in effect.
 *
 * <p>It never gives a batch up. A record that decodes but whose data PostgreSQL refuses is
 * dead-lettered with the SQLSTATE and message as its reason, and the records around it are applied
 * ({@link RefusalIsolation}). Any other failure (PostgreSQL down, connection cut, a timeout, Kafka
 * not taking a dead letter) retries the same step with capped exponential backoff for as long as it
 * takes, readiness DOWN with the reason meanwhile ({@link ProjectionOutage}); nothing is committed
 * until the batch is through, so nothing is lost, and it resumes by itself.
 */
@ApplicationScoped
public class NodeEventsConsumer {
  public static final String CHANNEL = "node-events";
  static final String POSTGRESQL = "PostgreSQL";
  static final String DEAD_LETTER_TOPIC = "Kafka (dead-letter topic)";
  private static final Logger LOG = Logger.getLogger(NodeEventsConsumer.class);
  private static final double JITTER = 0.2;

  private final ProjectionWriter writer;
  private final DeadLetters deadLetters;
  private final ProjectionMetrics metrics;
  private final GateLabels gateLabels;
  private final ProjectionOutage outage;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final Duration attemptTimeout;
  private final RefusalIsolation<Pending> isolation;
  private final NodeEventAuthenticity authenticity;

  /**
   * A poll's worth of records (max.poll.records): a group of the caught-up projection's small
   * batches stays far below it, and a backlog's full polls are written one a transaction, as
   * before.
   */
  static final int GROUP_RECORDS = 5_000;

  private final PartitionWriteOrder<TopicPartition, Received> writeOrder =
      new PartitionWriteOrder<>(GROUP_RECORDS);
  private volatile boolean running = true;

  /** An event of the batch with the record it came from (for its dead letter). */
  private record Pending(DecodedRecord.Accepted event, KafkaRecord<String, byte[]> record) {}

  public NodeEventsConsumer(
      ProjectionWriter writer,
      DeadLetters deadLetters,
      ProjectionMetrics metrics,
      GateLabels gateLabels,
      ProjectionOutage outage,
      ProjectionConfig config,
      NodeEventAuthenticity authenticity) {
    this.gateLabels = gateLabels;
    this.authenticity = authenticity;
    this.writer = writer;
    this.deadLetters = deadLetters;
    this.metrics = metrics;
    this.outage = outage;
    this.initialBackoff = config.retry().initialBackoff();
    this.maxBackoff = config.retry().maxBackoff();
    this.attemptTimeout = config.attemptTimeout();
    this.isolation = new RefusalIsolation<>(this::write, this::refused);
  }

  void onStop(@Observes ShutdownEvent event) {
    running = false;
  }

  private static long offset(KafkaRecord<String, byte[]> record) {
    return record
        .getMetadata(IncomingKafkaRecordMetadata.class)
        .map(NodeEventsConsumer::offset)
        .orElse(-1L);
  }

  // getMetadata(Class) yields the raw type; read it as the wildcard type (no raw-type call).
  private static long offset(IncomingKafkaRecordMetadata<?, ?> metadata) {
    return metadata.getOffset();
  }

  /**
   * Takes a batch from the channel. The method's result completes once the batch is decoded and has
   * joined its group ({@link PartitionWriteOrder}); the group writes on its turn by itself, and the
   * channel hands over the next batch, whose decoding overlaps the write under way. Batches handed
   * over while a write is under way join one group, written together once it is over, up to {@link
   * #GROUP_RECORDS} records: then the channel waits for that group's turn, which bounds the records
   * held (PostgreSQL sat idle while each batch decoded; small batches each paid a transaction).
   */
  @Incoming(CHANNEL)
  public Uni<Void> consume(KafkaRecordBatch<String, byte[]> batch) {
    long handedOver = System.nanoTime();
    return decode(batch)
        .map(
            decoded ->
                writeOrder.join(
                    batch.getLatestOffsetRecords().keySet(),
                    new Received(batch, decoded, handedOver),
                    batch.getRecords().size()))
        .invoke(
            joined -> {
              if (joined.opened()) {
                writeInTurn(joined.group());
              }
            })
        .chain(joined -> Uni.createFrom().completionStage(joined.handOver()))
        .onFailure()
        .recoverWithUni(failure -> failed(batch, failure));
  }

  /** A batch's events after the signature checks and decoding, and the records refused by them. */
  private record Decoded(List<Pending> events, List<Rejection> rejections) {}

  /** A batch as it waits in its group: decoded, and when it was handed over (for its meter). */
  private record Received(
      KafkaRecordBatch<String, byte[]> batch, Decoded decoded, long handedOver) {}

  private Uni<Decoded> decode(KafkaRecordBatch<String, byte[]> batch) {
    List<Headers> headers = new ArrayList<>();
    batch.forEach(record -> headers.add(record.getHeaders()));
    return untilDone(POSTGRESQL, () -> authenticity.forBatch(headers))
        // Decoding (signature checks, JSON parsing) is the batch's CPU work: on a worker thread, so
        // that the event loop it came from keeps serving HTTP requests and PostgreSQL connections
        // (a 5,000-record batch held it for seconds on a loaded machine). Records keep their order.
        .emitOn(Infrastructure.getDefaultWorkerPool())
        .map(
            check -> {
              List<KafkaRecord<String, byte[]>> received = batch.getRecords();
              List<DecodedRecord> decoded =
                  NodeEventAuthenticity.decodeAll(
                      received,
                      record ->
                          NodeEventAuthenticity.decode(
                              check, record.getKey(), record.getPayload(), record.getHeaders()));
              List<Pending> events = new ArrayList<>();
              List<Rejection> rejections = new ArrayList<>();
              for (int i = 0; i < received.size(); i++) {
                KafkaRecord<String, byte[]> record = received.get(i);
                switch (decoded.get(i)) {
                  case DecodedRecord.Accepted accepted -> events.add(new Pending(accepted, record));
                  case DecodedRecord.Rejected rejected ->
                      rejections.add(rejection(record, rejected.reason()));
                }
              }
              return new Decoded(events, rejections);
            });
  }

  /** Writes a group on its turn, in the background; the turn is over once it is acknowledged. */
  private void writeInTurn(PartitionWriteOrder.Group<Received> group) {
    Uni.createFrom()
        .completionStage(group.turn())
        .subscribe()
        .with(
            turn ->
                turn.earlierFailure()
                    .map(Uni.createFrom()::<Void>failure)
                    .orElseGet(() -> writeGroup(turn.batches()))
                    .onFailure()
                    .call(failure -> failedAll(turn.batches(), failure))
                    .subscribe()
                    .with(done -> group.finished(), group::failed));
  }

  /** A group's batches in one transaction, then each batch acknowledged, in the order received. */
  private Uni<Void> writeGroup(List<Received> group) {
    List<Pending> events = new ArrayList<>();
    List<Rejection> rejections = new ArrayList<>();
    int records = 0;
    for (Received received : group) {
      events.addAll(received.decoded().events());
      rejections.addAll(received.decoded().rejections());
      records += received.batch().getRecords().size();
    }
    int written = records;
    long oldest = oldestTimestamp(group);
    return deadLetter(rejections)
        .chain(() -> isolation.apply(events))
        .invoke(
            changes -> {
              metrics.recordBatch(written, changes, rejections.size());
              metrics.recordStaleness(oldest);
            })
        // Effects of the committed batch: the gate as a Kubernetes node label, where enabled.
        .call(changes -> gateLabels.mirror(changes.nodes()))
        .chain(
            () ->
                inOrder(
                    group,
                    received ->
                        Uni.createFrom()
                            .completionStage(received.batch().ack())
                            .invoke(() -> metrics.recordBatchDuration(received.handedOver()))));
  }

  private Uni<Void> failedAll(List<Received> group, Throwable failure) {
    return inOrder(group, received -> failed(received.batch(), failure));
  }

  /** {@code step} for each batch of the group, one after the other, in the order received. */
  private static Uni<Void> inOrder(List<Received> group, Function<Received, Uni<Void>> step) {
    return Multi.createFrom()
        .iterable(group)
        .onItem()
        .transformToUniAndConcatenate(step::apply)
        .collect()
        .last()
        .replaceWithVoid();
  }

  /**
   * Reached at shutdown (retrying stops; Kafka redelivers the batch), after an earlier batch of the
   * same partitions failed, or on a bug, for which the channel's failure strategy (fail) stops the
   * channel and liveness.
   */
  private Uni<Void> failed(KafkaRecordBatch<String, byte[]> batch, Throwable failure) {
    if (running) {
      LOG.errorf(failure, "batch of %d records could not be projected", batch.getRecords().size());
    }
    return Uni.createFrom().completionStage(batch.nack(failure));
  }

  /** The smallest Kafka timestamp of the group's records (0 when none carries one). */
  private static long oldestTimestamp(List<Received> group) {
    long oldest = Long.MAX_VALUE;
    for (Received received : group) {
      for (KafkaRecord<String, byte[]> record : received.batch()) {
        long timestamp = record.getTimestamp() == null ? 0 : record.getTimestamp().toEpochMilli();
        if (timestamp > 0 && timestamp < oldest) {
          oldest = timestamp;
        }
      }
    }
    return oldest == Long.MAX_VALUE ? 0 : oldest;
  }

  /** One transaction, bounded, tried again until it commits or the database refuses the data. */
  private Uni<BatchChanges> write(List<Pending> pieces) {
    List<DecodedRecord.Accepted> events = pieces.stream().map(Pending::event).toList();
    return untilDone(POSTGRESQL, () -> writer.applyDecoded(ProjectionTables.LIVE, events));
  }

  /** The database refused this event's data: dead-letter it, then the batch goes on without it. */
  private Uni<Void> refused(Pending pending, PgException refusal) {
    Rejection rejection =
        rejection(
            pending.record(),
            DeadLetters.REFUSED_BY_POSTGRESQL + DatabaseFailures.describe(refusal));
    return deadLetter(List.of(rejection)).invoke(() -> metrics.recordRefused(1));
  }

  /**
   * Until the broker has every one of them: all sent together, and an attempt that fails or times
   * out is followed by one that sends only the letters not yet acknowledged, under a bound that
   * grows with their number (a flood of junk neither stalls nor loops the projection).
   */
  private Uni<Void> deadLetter(List<Rejection> rejections) {
    if (rejections.isEmpty()) {
      return Uni.createFrom().voidItem();
    }
    DeadLetters.Delivery delivery = deadLetters.delivery(rejections);
    return untilDone(
        DEAD_LETTER_TOPIC,
        () -> delivery.attemptBound(attemptTimeout),
        delivery::sendUnacknowledged);
  }

  private static Rejection rejection(KafkaRecord<String, byte[]> record, String reason) {
    long offset = offset(record);
    Runnable line =
        () ->
            LOG.warnf(
                "dead-lettering %s-%d@%d: %s",
                record.getTopic(), record.getPartition(), offset, reason);
    if (record.getKey() == null) {
      line.run();
    } else {
      LogContext.aboutNode(record.getKey(), line); // the key names the node, if anything does
    }
    return new Rejection(
        record.getTopic(),
        record.getPartition(),
        offset,
        record.getKey(),
        record.getPayload(),
        reason);
  }

  /**
   * Runs {@code step} (subscribed anew on every attempt) until it succeeds, each attempt bounded by
   * the attempt timeout, with capped exponential backoff between attempts. A refusal of the data by
   * PostgreSQL is not retried (it would fail the same way): it ends the wait and is passed on. Only
   * a step that failed ends the wait when it gets through: the next batch's decoding runs beside
   * the current batch's write, and its success says nothing about a service the write still waits
   * for (it had logged "resumed" and a second "waiting" in the middle of one outage).
   */
  private <T> Uni<T> untilDone(String service, Supplier<Uni<? extends T>> step) {
    return untilDone(service, () -> attemptTimeout, step);
  }

  /** As above, each attempt bounded by what {@code bound} answers as it starts. */
  private <T> Uni<T> untilDone(
      String service, Supplier<Duration> bound, Supplier<Uni<? extends T>> step) {
    return Uni.createFrom()
        .deferred(
            () -> {
              AtomicBoolean waited = new AtomicBoolean();
              Runnable through =
                  () -> {
                    if (waited.get()) {
                      outage.resumed();
                    }
                  };
              return Uni.createFrom()
                  .deferred(
                      () -> Uni.createFrom().<T>deferred(step).ifNoItem().after(bound.get()).fail())
                  .onFailure(this::retryable)
                  .invoke(
                      failure -> {
                        waited.set(true);
                        outage.failed(service, failure);
                      })
                  .onFailure(this::retryable)
                  .retry()
                  .withBackOff(initialBackoff, maxBackoff)
                  .withJitter(JITTER)
                  .indefinitely()
                  .onItem()
                  .invoke(through)
                  .onFailure(failure -> DatabaseFailures.refusal(failure).isPresent())
                  .invoke(through);
            });
  }

  private boolean retryable(Throwable failure) {
    return running && DatabaseFailures.refusal(failure).isEmpty();
  }
}
