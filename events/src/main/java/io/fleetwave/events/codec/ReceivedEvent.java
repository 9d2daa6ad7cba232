package io.fleetwave.events.codec;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.payload.FleetEvent;
import java.util.Objects;
import java.util.Optional;

/**
 * A decoded record and, where the record had the common shape, the exact JSON text of its {@code
 * data} object as received. Empty for records decoded along the reference path (an upcast older
 * version, an unusual but valid envelope): their payload's current form is the decoded record.
 *
 * @param envelope the decoded event
 * @param receivedData the {@code data} object's text, byte for byte as it was in the record
 */
public record ReceivedEvent(Envelope<FleetEvent> envelope, Optional<String> receivedData) {
  public ReceivedEvent {
    Objects.requireNonNull(envelope, "envelope");
    Objects.requireNonNull(receivedData, "receivedData");
  }
}
