package io.fleetwave.controlplane.projection;

import io.fleetwave.events.Topics;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.Metadata;

/**
 * Publishes refused records to {@link Topics#NODE_EVENTS_DLQ} unchanged (same key and value), with
 * the reason and the original coordinates in headers. Each send completes when the broker has the
 * record, so the batch's offsets are committed only after its dead letters are safe.
 */
@ApplicationScoped
public class DeadLetters {
  private static final byte[] EMPTY = new byte[0];

  private final MutinyEmitter<byte[]> emitter;

  public DeadLetters(@Channel("node-events-dlq") MutinyEmitter<byte[]> emitter) {
    this.emitter = emitter;
  }

  /** Sends one after another, so a burst of bad records cannot overflow the emitter's buffer. */
  public Uni<Void> sendAll(List<Rejection> rejections) {
    if (rejections.isEmpty()) {
      return Uni.createFrom().voidItem();
    }
    return Multi.createFrom()
        .iterable(rejections)
        .onItem()
        .transformToUniAndConcatenate(this::send)
        .collect()
        .last()
        .replaceWithVoid();
  }

  private Uni<Void> send(Rejection rejection) {
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
    return emitter.sendMessage(Message.of(value, Metadata.of(metadata)));
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
