package io.fleetwave.controlplane.projection;

import io.fleetwave.core.projection.Rejection;
import io.fleetwave.events.Topics;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.Metadata;

/**
 * Publishes refused records to {@link Topics#NODE_EVENTS_DLQ} unchanged (same key and value), with
 * the reason and the original coordinates in headers. A {@link Delivery} completes when the broker
 * has every one of them, so the batch's offsets are committed only after its dead letters are safe.
 */
@ApplicationScoped
public class DeadLetters {
  /**
   * How the reason of a record whose data PostgreSQL refused begins: the one refusal the fleet
   * view, which checks and folds what the projection does but writes nothing, cannot see for
   * itself.
   */
  public static final String REFUSED_BY_POSTGRESQL = "refused by PostgreSQL: ";

  /**
   * Dead letters awaiting their acknowledgement at once. Sent one after another, each waiting for
   * the last one's acknowledgement, a flood of junk took a round trip per record: whoever can write
   * to fleet.node-events made the whole fleet's view lag. Below the channel's max-inflight-messages
   * (1,024 by default), so the sink always has demand and the emitter never buffers (its buffer is
   * smaller).
   */
  static final int IN_FLIGHT = 512;

  private static final byte[] EMPTY = new byte[0];

  private final MutinyEmitter<byte[]> emitter;

  public DeadLetters(@Channel("node-events-dlq") MutinyEmitter<byte[]> emitter) {
    this.emitter = emitter;
  }

  /** The dead letters of these refused records, none sent yet. */
  public Delivery delivery(List<Rejection> rejections) {
    return new Delivery(rejections);
  }

  /**
   * A list of dead letters and which of them the broker has acknowledged. An attempt sends only the
   * ones not yet acknowledged, so after a failed or timed-out attempt the next resumes where the
   * broker stopped taking them instead of from the first: each refused record is dead-lettered once
   * (twice only where Kafka gave a letter up that it had in fact written).
   */
  public final class Delivery {
    private final List<Rejection> letters;
    private final BitSet acknowledged;

    private Delivery(List<Rejection> letters) {
      this.letters = List.copyOf(letters);
      this.acknowledged = new BitSet(letters.size());
    }

    /**
     * Sends every letter not yet acknowledged, up to {@link #IN_FLIGHT} awaiting acknowledgement at
     * a time, and completes once all are acknowledged. A letter Kafka gives up does not stop the
     * others: the attempt waits for all, then fails with the first failure, having recorded every
     * acknowledgement for the next attempt.
     */
    public Uni<Void> sendUnacknowledged() {
      List<Integer> pending = unacknowledged();
      if (pending.isEmpty()) {
        return Uni.createFrom().voidItem();
      }
      AtomicReference<Throwable> firstFailure = new AtomicReference<>();
      return Multi.createFrom()
          .iterable(pending)
          .onItem()
          .transformToUni(
              index ->
                  send(index)
                      .onFailure()
                      .recoverWithItem(
                          failure -> {
                            firstFailure.compareAndSet(null, failure);
                            return null;
                          }))
          .merge(IN_FLIGHT)
          .collect()
          .last()
          .chain(
              () ->
                  firstFailure.get() == null
                      ? Uni.createFrom().voidItem()
                      : Uni.createFrom().failure(firstFailure.get()));
    }

    /**
     * The bound on one attempt, given the bound on one letter: Kafka gives a letter up within its
     * delivery timeout, which the projection's attempt bound exceeds, and the letters go {@link
     * #IN_FLIGHT} at a time, so an attempt needs at most that bound once per {@link #IN_FLIGHT}
     * letters still unacknowledged. One bound for the whole list timed a large one out for ever.
     */
    public Duration attemptBound(Duration perLetter) {
      int rounds = Math.max(1, (unacknowledged().size() + IN_FLIGHT - 1) / IN_FLIGHT);
      return perLetter.multipliedBy(rounds);
    }

    private List<Integer> unacknowledged() {
      synchronized (acknowledged) {
        return IntStream.range(0, letters.size())
            .filter(i -> !acknowledged.get(i))
            .boxed()
            .toList();
      }
    }

    /**
     * Marks the letter from its message's own acknowledgement (which the sink calls once the broker
     * has it), not from the returned Uni: a cancelled attempt still records what got through.
     */
    private Uni<Void> send(int index) {
      Message<byte[]> message =
          letter(letters.get(index))
              .withAck(
                  () -> {
                    synchronized (acknowledged) {
                      acknowledged.set(index);
                    }
                    return CompletableFuture.completedFuture(null);
                  });
      return emitter.sendMessage(message);
    }
  }

  private static Message<byte[]> letter(Rejection rejection) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(Topics.DLQ_REASON_HEADER, utf8(rejection.reason()));
    headers.add(Topics.DLQ_TOPIC_HEADER, utf8(rejection.topic()));
    headers.add(Topics.DLQ_PARTITION_HEADER, utf8(Integer.toString(rejection.partition())));
    headers.add(Topics.DLQ_OFFSET_HEADER, utf8(Long.toString(rejection.offset())));
    OutgoingKafkaRecordMetadata<String> metadata =
        OutgoingKafkaRecordMetadata.<String>builder()
            .withKey(rejection.key())
            .withHeaders(headers)
            .build();
    byte[] value = rejection.value() == null ? EMPTY : rejection.value();
    return Message.of(value, Metadata.of(metadata));
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
