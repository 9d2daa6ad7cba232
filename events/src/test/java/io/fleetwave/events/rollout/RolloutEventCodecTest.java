package io.fleetwave.events.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.EventType;
import io.fleetwave.events.EventTypes;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.codec.Upcasters;
import io.fleetwave.events.compat.Release010Records;
import io.fleetwave.events.json.WireNamed;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RolloutEventCodecTest {
  private static final URI SOURCE = URI.create("fleetwave:rollout-engine");

  /**
   * Every kind: release 0.1.0's samples (as the compat test reads them from files), then the shapes
   * and kinds that came after or that the samples do not show (no restore point, no reason, a node
   * put back that was cordoned before, a skipped or revoked node).
   */
  static Stream<RolloutEvent> everyKind() {
    return Stream.concat(
        Release010Records.rolloutEvents().stream(),
        Stream.of(
            new NodeStarted(1, "n1", Phase.ROLLBACK, 5, null),
            new RolloutResumed(null, "alice"),
            new NodeTakenOutOfService(
                "n2",
                Phase.ROLLBACK,
                false,
                false,
                List.of(),
                List.of(),
                null,
                "not in the cluster",
                0),
            new NodeReturnedToService(
                "n3",
                Phase.FORWARD,
                false,
                List.of(),
                "cordoned before the rollout: stays cordoned"),
            new NodeSkipped(2, "n4", NodeSkipped.REVOKED),
            new NodeFailed(2, "n5", Phase.FORWARD, new FailureCause.Revoked(), 1200)));
  }

  @ParameterizedTest
  @MethodSource("everyKind")
  void everyKindRoundTripsWithItsOwnType(RolloutEvent event) throws EventRejectedException {
    Envelope<RolloutEvent> envelope =
        Envelope.of(SOURCE, "3f1c2a5e-rollout", Instant.parse("2026-11-29T12:00:00Z"), 0, 7, event);

    Envelope<?> decoded = EventCodec.decode(EventCodec.encode(envelope));

    assertThat(decoded.data()).isEqualTo(event);
    assertThat(decoded.type())
        .startsWith("io.fleetwave.rollout.")
        .isEqualTo(EventTypes.typeOf(event));
    assertThat(decoded.seq()).isEqualTo(7);
  }

  @Test
  void aForwardStartWithoutRestorePointIsRefusedOnDecode() {
    String json =
        """
        {"specversion":"1.0","id":"x","source":"s","type":"%s","subject":"r","time":"2026-11-29T12:00:00Z",
         "epoch":"0","seq":"1","datacontenttype":"application/json",
         "data":{"wave":1,"node":"n1","phase":"forward","generation":3}}
        """
            .formatted(
                EventTypes.typeOf(new WaveStarted(1)).replace("wave-started", "node-started"));

    assertThatThrownBy(() -> EventCodec.decode(json.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(EventRejectedException.class)
        .hasMessageContaining("restore");
  }

  private static byte[] written(String type, String data) {
    return """
        {"specversion":"1.0","id":"x","source":"s","type":"%s","subject":"r",\
        "time":"2026-11-29T12:00:00Z","epoch":"0","seq":"1",\
        "datacontenttype":"application/json","data":%s}
        """
        .formatted(type, data)
        .getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aNodeFailedOfVersionOneStillReadsWithItsReasonAsAnUnclassifiedCause()
      throws EventRejectedException {
    byte[] v1 =
        written(
            "io.fleetwave.rollout.node-failed.v1",
            """
            {"wave":2,"node":"n2","phase":"forward","reason":"no result within 600 s",\
            "elapsedMillis":600000}""");

    Envelope<?> decoded = EventCodec.decode(v1);

    assertThat(decoded.data())
        .isEqualTo(
            new NodeFailed(
                2,
                "n2",
                Phase.FORWARD,
                new FailureCause.Unclassified("no result within 600 s"),
                600_000));
  }

  @Test
  void operatorDecisionsOfVersionOneStillReadWithAnUnknownActor() throws EventRejectedException {
    assertThat(
            EventCodec.decode(written("io.fleetwave.rollout.paused.v1", "{\"reason\":\"x\"}"))
                .data())
        .isEqualTo(new RolloutPaused("x", RolloutEvent.UNKNOWN_ACTOR));
    assertThat(
            EventCodec.decode(written("io.fleetwave.rollout.resumed.v1", "{\"reason\":null}"))
                .data())
        .isEqualTo(new RolloutResumed(null, RolloutEvent.UNKNOWN_ACTOR));
    assertThat(
            EventCodec.decode(written("io.fleetwave.rollout.aborted.v1", "{\"reason\":\"x\"}"))
                .data())
        .isEqualTo(new RolloutAborted("x", RolloutEvent.UNKNOWN_ACTOR));
    assertThat(
            EventCodec.decode(
                    written("io.fleetwave.rollout.rollback-started.v1", "{\"reason\":\"x\"}"))
                .data())
        .isEqualTo(new RollbackStarted("x", RolloutEvent.UNKNOWN_ACTOR));
    assertThat(
            EventCodec.decode(written("io.fleetwave.rollout.wave-promoted.v1", "{\"wave\":2}"))
                .data())
        .isEqualTo(new WavePromoted(2, RolloutEvent.UNKNOWN_ACTOR));
  }

  @Test
  void aRolloutCreatedOfVersionOneStillReadsWithoutSpecAndPlan() throws EventRejectedException {
    byte[] v1 =
        written(
            "io.fleetwave.rollout.created.v1", "{\"name\":\"old\",\"waves\":[[\"n1\"],[\"n2\"]]}");

    RolloutCreated created = (RolloutCreated) EventCodec.decode(v1).data();

    assertThat(created)
        .isEqualTo(
            new RolloutCreated(
                "old",
                List.of(List.of("n1"), List.of("n2")),
                null,
                null,
                RolloutEvent.UNKNOWN_ACTOR));
    assertThat(created.selfContained()).isFalse();
  }

  @Test
  void everyReadableOldVersionHasAnUpcasterToTheNext() {
    for (EventType type : EventTypes.all()) {
      for (int v = type.oldestReadable(); v < type.version(); v++) {
        assertThat(Upcasters.has(type, v)).as(type.wireType(v)).isTrue();
      }
    }
  }

  @Test
  void aNodeFailedCarriesItsTypedCauseAndTheCauseInWordsForReaders() {
    NodeFailed failed =
        new NodeFailed(
            1,
            "n1",
            Phase.FORWARD,
            new FailureCause.TimedOut(600, "spec generation 4 not applied"),
            1);

    String json =
        new String(
            EventCodec.encode(
                Envelope.of(SOURCE, "r", Instant.parse("2026-11-29T12:00:00Z"), 0, 1, failed)),
            StandardCharsets.UTF_8);

    assertThat(json)
        .contains("\"cause\":{\"kind\":\"timed-out\",\"limitSeconds\":600")
        .contains("\"reason\":\"no result within 600 s: spec generation 4 not applied\"");
  }

  @Test
  void aFailureCauseOfUnknownKindIsRefusedNamingTheField() {
    byte[] bad =
        written(
            "io.fleetwave.rollout.node-failed.v2",
            """
            {"wave":2,"node":"n2","phase":"forward","cause":{"kind":"gremlins"},\
            "elapsedMillis":1}""");

    assertThatThrownBy(() -> EventCodec.decode(bad))
        .isInstanceOf(EventRejectedException.class)
        .hasMessageContaining("cause")
        .hasMessageContaining("gremlins");
  }

  @Test
  void anUnknownPhaseIsRefusedWithTheAllowedValues() {
    assertThatThrownBy(() -> WireNamed.parse(Phase.class, "sideways"))
        .hasMessage("unknown phase 'sideways', expected one of forward, rollback");
  }
}
