package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.identity.NodeEventAuthenticity;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.FleetEvent;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.NodeEvent;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;

/**
 * Turns a raw record (key, value) into a node event or a rejection reason: first whether its node
 * signed it (where node identity is required), then the codec's checks. Beyond the codec's checks,
 * the key must be present and equal the subject: the key decides the partition, and the per-node
 * order the projection relies on holds only within one partition.
 */
public final class RecordDecoder {
  private RecordDecoder() {}

  /**
   * Decodes a record that must first prove it comes from its node ({@code check}, before anything
   * of its value is parsed).
   */
  public static DecodedRecord decode(
      String key, byte[] value, Headers headers, NodeEventAuthenticity.Check check) {
    if (key == null) {
      return noKey();
    }
    Optional<String> refusal = check.refusal(key, value, headers);
    return refusal.isPresent() ? new DecodedRecord.Rejected(refusal.get()) : decode(key, value);
  }

  @SuppressWarnings("unchecked")
  public static DecodedRecord decode(String key, byte[] value) {
    if (key == null) {
      return noKey();
    }
    Envelope<FleetEvent> envelope;
    try {
      envelope = EventCodec.decode(value);
    } catch (EventRejectedException e) {
      return new DecodedRecord.Rejected(e.getMessage());
    }
    if (!(envelope.data() instanceof NodeEvent)) {
      return new DecodedRecord.Rejected("event type '" + envelope.type() + "' is not a node event");
    }
    if (!key.equals(envelope.subject())) {
      return new DecodedRecord.Rejected(
          "record key '" + key + "' does not match the event subject '" + envelope.subject() + "'");
    }
    Envelope<NodeEvent> nodeEnvelope = (Envelope<NodeEvent>) (Envelope<?>) envelope;
    return new DecodedRecord.Accepted(nodeEnvelope);
  }

  private static DecodedRecord noKey() {
    return new DecodedRecord.Rejected("record has no key (expected the node name)");
  }
}
