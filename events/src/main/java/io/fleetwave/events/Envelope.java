package io.fleetwave.events;

import io.fleetwave.events.payload.FleetEvent;
import java.net.URI;
import java.time.Instant;
import java.util.UUID;

/**
 * A CloudEvents envelope plus the per-node ordering attributes.
 *
 * <p>{@code epoch} identifies one run of the agent (it grows across restarts: the agent's start
 * time in milliseconds); {@code seq} counts events within that run from 0. Ordering is (epoch, seq)
 * lexicographic, which is what lets the projection drop duplicates and stale events in the same
 * transaction as the update.
 *
 * @param id unique event id (CloudEvents {@code id})
 * @param source who produced it (CloudEvents {@code source})
 * @param type versioned type name, e.g. {@code io.fleetwave.node.registered.v1}
 * @param subject the node name; also the Kafka record key
 * @param time when the producer created it
 * @param epoch the producer run
 * @param seq position within the run
 * @param data the payload
 */
public record Envelope<E extends FleetEvent>(
    String id,
    URI source,
    String type,
    String subject,
    Instant time,
    long epoch,
    long seq,
    E data) {

  public static final String DATA_CONTENT_TYPE = "application/json";

  public Envelope {
    RequiredAttributes.check(id, source, type, subject, time, data);
    if (epoch < 0 || seq < 0) {
      throw new IllegalArgumentException("epoch and seq must not be negative");
    }
  }

  /** A new envelope with a random id, typed after its payload. */
  public static <E extends FleetEvent> Envelope<E> of(
      URI source, String subject, Instant time, long epoch, long seq, E data) {
    return new Envelope<>(
        UUID.randomUUID().toString(),
        source,
        EventTypes.typeOf(data),
        subject,
        time,
        epoch,
        seq,
        data);
  }

  /** True when this envelope comes strictly after the given position of the same node. */
  public boolean isAfter(long otherEpoch, long otherSeq) {
    return epoch > otherEpoch || (epoch == otherEpoch && seq > otherSeq);
  }
}
