package io.fleetwave.events.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.EventTypes;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.GateReleased;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressEventCodecTest {
  private static final PlannedStep RESET =
      new PlannedStep(2, StepKind.RESET_GPU, 0, "targeted GPU reset", 60_000);
  private static final PlannedStep RELEASE =
      new PlannedStep(7, StepKind.RELEASE_GATE, null, "release the device-plugin gate", 10_000);

  private static final List<NodeEvent> EVERY_PROGRESS_EVENT =
      List.of(
          new NodeBooted("boot-2", "boot-1"),
          new NodeBooted("boot-1", null),
          new SpecAccepted(3, List.of(RESET, RELEASE)),
          new SpecAccepted(3, List.of()),
          new SpecRejected(4, "c-1", "forged", "signature does not verify"),
          new SpecRejected(0, null, "malformed", "not a CloudEvents JSON envelope"),
          new StepStarted(3, RESET),
          new StepSucceeded(3, RELEASE, 12),
          new StepFailed(
              3,
              RESET,
              "GPU 0: reset failed: held by nvidia-persistenced",
              "nvidia-persistenced",
              5),
          new StepFailed(3, RESET, "GPU 0: reset-gpu: deadline 60s exceeded", null, 60_001),
          new SpecApplied(3),
          new GateHeld(0, "booted"),
          new GateReleased(3));

  @Test
  void everyProgressEventRoundTrips() throws EventRejectedException {
    for (NodeEvent event : EVERY_PROGRESS_EVENT) {
      Envelope<NodeEvent> envelope =
          Envelope.of(
              URI.create("fleetwave:agent/n"),
              "n",
              Instant.parse("2026-11-29T10:00:00Z"),
              1,
              5,
              event);

      assertThat(EventCodec.decode(EventCodec.encode(envelope))).isEqualTo(envelope);
    }
  }

  @Test
  void progressEventsHaveNodeWireTypes() {
    assertThat(EventTypes.typeOf(new SpecAccepted(1, List.of())))
        .isEqualTo("io.fleetwave.node.spec-accepted.v1");
    assertThat(EventTypes.typeOf(new StepFailed(1, RESET, "r", null, 0)))
        .isEqualTo("io.fleetwave.node.step-failed.v1");
    assertThat(EventTypes.typeOf(new NodeBooted("b", null)))
        .isEqualTo("io.fleetwave.node.booted.v1");
  }

  @Test
  void stepKindsTravelByWireName() throws Exception {
    byte[] bytes =
        EventCodec.encode(
            Envelope.of(
                URI.create("fleetwave:agent/n"),
                "n",
                Instant.EPOCH,
                1,
                1,
                new StepStarted(3, RESET)));
    String json = new String(bytes, StandardCharsets.UTF_8);

    assertThat(json).contains("\"kind\":\"reset-gpu\"");
    assertThatThrownBy(
            () ->
                EventCodec.decode(
                    json.replace("\"reset-gpu\"", "\"explode\"").getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(EventRejectedException.class)
        .hasMessageContaining("unknown step kind 'explode'");
  }

  @Test
  void aFailedStepNeedsAReason() {
    assertThatThrownBy(() -> new StepFailed(3, RESET, " ", null, 0))
        .hasMessageContaining("field 'reason' must not be blank");
  }
}
