package io.fleetwave.core.projection;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.codec.ReceivedEvent;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.payload.FleetEvent;

/**
 * Turns a raw record (key, value) into a node event or a rejection reason (whether its node signed
 * it is the control plane's {@code NodeEventAuthenticity}'s to say, before). Beyond the codec's
 * checks, the key must be present and equal the subject: the key decides the partition, and the
 * per-node order the projection relies on holds only within one partition.
 */
public final class RecordDecoder {
  private RecordDecoder() {}

  @SuppressWarnings("unchecked")
  public static DecodedRecord decode(String key, byte[] value) {
    if (key == null) {
      return noKey();
    }
    ReceivedEvent received;
    try {
      received = EventCodec.decodeReceived(value);
    } catch (EventRejectedException e) {
      return new DecodedRecord.Rejected(e.getMessage());
    }
    Envelope<FleetEvent> envelope = received.envelope();
    if (!(envelope.data() instanceof NodeEvent)) {
      return new DecodedRecord.Rejected("event type '" + envelope.type() + "' is not a node event");
    }
    if (!key.equals(envelope.subject())) {
      return new DecodedRecord.Rejected(
          "record key '" + key + "' does not match the event subject '" + envelope.subject() + "'");
    }
    Envelope<NodeEvent> nodeEnvelope = (Envelope<NodeEvent>) (Envelope<?>) envelope;
    return new DecodedRecord.Accepted(nodeEnvelope, received.receivedData());
  }

  private static DecodedRecord noKey() {
    return new DecodedRecord.Rejected("record has no key (expected the node name)");
  }
}
