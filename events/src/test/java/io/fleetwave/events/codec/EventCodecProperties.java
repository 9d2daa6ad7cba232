package io.fleetwave.events.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.payload.FleetEvent;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class EventCodecProperties {

  @Property(tries = 500)
  void everyEventSurvivesARoundTrip(@ForAll("envelopes") Envelope<NodeEvent> envelope)
      throws EventRejectedException {
    Envelope<FleetEvent> decoded = EventCodec.decode(EventCodec.encode(envelope));

    assertThat(decoded).isEqualTo(envelope);
  }

  @Property(tries = 300)
  void truncatedRecordsAreRejectedNeverThrownThrough(
      @ForAll("envelopes") Envelope<NodeEvent> envelope, @ForAll double cut) {
    byte[] whole = EventCodec.encode(envelope);
    int length = (int) (Math.abs(cut) % 1.0 * whole.length);
    byte[] truncated = java.util.Arrays.copyOf(whole, length);

    // Whatever the cut, the codec answers with a reason or (for no cut at all) the event.
    try {
      EventCodec.decode(truncated);
      assertThat(length).isEqualTo(whole.length);
    } catch (EventRejectedException e) {
      assertThat(e.getMessage()).isNotBlank();
    }
  }

  @Provide
  Arbitrary<Envelope<NodeEvent>> envelopes() {
    return EventArbitraries.envelopes();
  }
}
