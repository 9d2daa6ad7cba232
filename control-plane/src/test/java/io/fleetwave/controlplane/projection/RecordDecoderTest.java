package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.fixtures.Events;
import io.fleetwave.events.codec.EventCodec;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RecordDecoderTest {
  private static final byte[] BEAT =
      EventCodec.encode(Events.envelope("n", 1, 1, Events.heartbeat(1)));

  @Test
  void acceptsANodeEventKeyedByItsSubject() {
    assertThat(RecordDecoder.decode("n", BEAT)).isInstanceOf(DecodedRecord.Accepted.class);
  }

  @Test
  void refusesARecordWithoutKey() {
    assertThat(RecordDecoder.decode(null, BEAT))
        .isEqualTo(new DecodedRecord.Rejected("record has no key (expected the node name)"));
  }

  @Test
  void refusesAKeyThatIsNotTheSubject() {
    assertThat(RecordDecoder.decode("m", BEAT))
        .isEqualTo(
            new DecodedRecord.Rejected("record key 'm' does not match the event subject 'n'"));
  }

  @Test
  void passesOnTheCodecsReason() {
    DecodedRecord decoded = RecordDecoder.decode("n", "nope".getBytes(StandardCharsets.UTF_8));
    assertThat(decoded).isInstanceOf(DecodedRecord.Rejected.class);
    assertThat(((DecodedRecord.Rejected) decoded).reason()).contains("envelope");
  }
}
