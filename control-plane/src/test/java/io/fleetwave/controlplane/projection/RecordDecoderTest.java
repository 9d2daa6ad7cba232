package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.core.projection.DecodedRecord;
import io.fleetwave.core.projection.RecordDecoder;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.testfixtures.events.Events;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.IntStream;
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

  @Test
  void aLargeBatchDecodesInParallelToTheSameVerdictsInRecordOrder() {
    // Every seventh record refused (a key that is not its subject), the others of many nodes.
    List<byte[]> values =
        IntStream.range(0, 20 * NodeEventAuthenticity.PARALLEL_FROM)
            .mapToObj(
                i ->
                    EventCodec.encode(Events.envelope("node-" + i % 97, 1, i, Events.heartbeat(i))))
            .toList();
    List<Integer> positions = IntStream.range(0, values.size()).boxed().toList();
    java.util.function.Function<Integer, DecodedRecord> decode =
        i -> RecordDecoder.decode(i % 7 == 0 ? "other" : "node-" + i % 97, values.get(i));

    List<DecodedRecord> decoded = NodeEventAuthenticity.decodeAll(positions, decode);

    assertThat(decoded).isEqualTo(positions.stream().map(decode).toList());
    assertThat(decoded.get(7)).isInstanceOf(DecodedRecord.Rejected.class);
    assertThat(((DecodedRecord.Accepted) decoded.get(8)).envelope().seq()).isEqualTo(8);
  }
}
