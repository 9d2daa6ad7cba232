package io.fleetwave.events.fact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.NodeSpec;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ControlFactCodecTest {
  private static final URI SOURCE = URI.create("fleetwave:control-plane");
  private static final Instant AT = Instant.parse("2026-12-04T22:00:00.123456Z");
  private static final UUID REQUEST = UUID.fromString("5f0c6f9e-7d3b-4f47-9a54-0c1d8e6b2a10");
  private static final UUID ROLLOUT = UUID.fromString("0b6e3c2a-1f4d-4a8e-b7c9-2d5e8f1a3b4c");

  /** Listed, not defaulted, so a new fact fails to compile here until it has a sample. */
  static Stream<ControlFact> everyKind() {
    return Stream.<ControlFact>of(
            new NodeKeyEnrolled(
                "sha256:abc", "-----BEGIN PUBLIC KEY-----", "join token a1b2c3", AT, "a1b2c3"),
            new NodeKeyEnrolled(
                "sha256:abc", "-----BEGIN PUBLIC KEY-----", "service account x", AT, null),
            new JoinTokenCreated("a1b2c3", "0".repeat(64), "alice", AT, AT.plusSeconds(600)),
            new MigConfigsImported("version: v1\nmig-configs: {}\n", "api", AT),
            new NodeRevoked(AT, "alice"),
            new NodeReadmitted(AT, "alice"),
            new AuditRecorded(AT, "alice", "PUT /api/v1/nodes/{name}/spec", "/x", 200, "accepted"),
            new DesiredSpecSet(
                new NodeSpec("gpu-17", 3, "580.95.05", List.of(), GatePolicy.OPEN), "alice", AT),
            new DesiredSpecSet(
                new NodeSpec("gpu-17", 4, "580.95.05", List.of(), GatePolicy.OPEN), null, AT),
            new CommandGenerationUsed(7, AT),
            new OperatorRequested(REQUEST, ROLLOUT, "pause", "look first", "alice", AT),
            new OperatorRequested(REQUEST, ROLLOUT, "promote", null, "alice", AT),
            new OperatorRequestHandled(REQUEST, "done", AT),
            new OperatorRequestHandled(REQUEST, "refused: cannot resume a running rollout", AT))
        .peek(
            fact -> {
              switch (fact) {
                case NodeKeyEnrolled enrolled -> {}
                case NodeRevoked revoked -> {}
                case NodeReadmitted readmitted -> {}
                case JoinTokenCreated created -> {}
                case MigConfigsImported imported -> {}
                case AuditRecorded recorded -> {}
                case DesiredSpecSet set -> {}
                case CommandGenerationUsed used -> {}
                case OperatorRequested requested -> {}
                case OperatorRequestHandled handled -> {}
              }
            });
  }

  @ParameterizedTest
  @MethodSource("everyKind")
  void everyFactSurvivesARoundTrip(ControlFact fact) throws EventRejectedException {
    Envelope<ControlFact> envelope = Envelope.of(SOURCE, "gpu-17", AT, 0, 0, fact);

    assertThat(EventCodec.decode(EventCodec.encode(envelope))).isEqualTo(envelope);
  }

  @Test
  void aJoinTokenFactHoldsTheSecretsHashOnly() {
    assertThatThrownBy(
            () ->
                new JoinTokenCreated("a1b2c3", "s3cr3ts3cr3ts3cr", "alice", AT, AT.plusSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("secretSha256")
        .hasMessageNotContaining("s3cr3t");
  }

  @Test
  void aRequestForAnActionTheEngineDoesNotKnowIsRefusedNamingIt() {
    assertThatThrownBy(() -> new OperatorRequested(REQUEST, ROLLOUT, "restart", null, "alice", AT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field 'action'")
        .hasMessageContaining("'restart'");
  }

  @Test
  void anEnrolmentWithoutItsKeyIsRefusedNamingTheField() {
    byte[] record =
        """
        {"specversion":"1.0","id":"x","source":"s","type":"io.fleetwave.fact.node-key-enrolled.v1",\
        "subject":"gpu-17","time":"2026-12-04T22:00:00Z","epoch":"0","seq":"0",\
        "datacontenttype":"application/json","data":{"keyId":"sha256:abc",\
        "credential":"join token a1b2c3","enrolledAt":"2026-12-04T22:00:00Z"}}
        """
            .getBytes(StandardCharsets.UTF_8);

    assertThatThrownBy(() -> EventCodec.decode(record))
        .isInstanceOf(EventRejectedException.class)
        .hasMessageContaining("publicKey");
  }
}
