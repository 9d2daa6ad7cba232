package io.fleetwave.events.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.EventTypes;
import io.fleetwave.events.codec.EventCodec;
import java.net.URI;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class EventsDroppedTest {
  @Test
  void roundTripsUnderItsNodeWireType() throws EventRejectedException {
    Envelope<NodeEvent> envelope =
        Envelope.of(
            URI.create("fleetwave:agent/n"),
            "n",
            Instant.parse("2026-11-30T10:00:00Z"),
            7,
            40,
            new EventsDropped(12, 39, 28, "memory queue full (1048576 bytes)"));

    assertThat(envelope.type()).isEqualTo("io.fleetwave.node.events-dropped.v1");
    assertThat(EventCodec.decode(EventCodec.encode(envelope))).isEqualTo(envelope);
    assertThat(EventTypes.typeOf(new EventsDropped(0, 0, 1, "r")))
        .isEqualTo("io.fleetwave.node.events-dropped.v1");
  }

  @Test
  void aRangeThatDoesNotAddUpIsRefusedNamingTheField() {
    assertThatThrownBy(() -> new EventsDropped(10, 9, 0, "r"))
        .hasMessageContaining("'toSeq' (9) must not be below 'fromSeq' (10)");
    assertThatThrownBy(() -> new EventsDropped(10, 19, 9, "r"))
        .hasMessageContaining("'count' (9) must be toSeq - fromSeq + 1 = 10");
    assertThatThrownBy(() -> new EventsDropped(-1, 1, 3, "r"))
        .hasMessageContaining("'fromSeq' must not be negative");
  }
}
