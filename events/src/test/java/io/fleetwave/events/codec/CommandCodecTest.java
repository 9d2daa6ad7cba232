package io.fleetwave.events.codec;

import static io.fleetwave.events.command.Fixtures.CONTROL_PLANE;
import static io.fleetwave.events.command.Fixtures.EXPIRES;
import static io.fleetwave.events.command.Fixtures.ISSUED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.command.Fixtures;
import io.fleetwave.events.command.Reprobe;
import io.fleetwave.events.node.Heartbeat;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class CommandCodecTest {

  @Test
  void everyCommandTypeRoundTripsWithAndWithoutSignature() throws Exception {
    for (CommandEnvelope command :
        new CommandEnvelope[] {
          Fixtures.apply("vgpu-h200-0", 3),
          Fixtures.reset("vgpu-h200-0", 2, 9),
          CommandEnvelope.of(CONTROL_PLANE, "vgpu-h200-0", ISSUED, new Reprobe(10, ISSUED, EXPIRES))
        }) {
      assertThat(CommandCodec.decode(CommandCodec.encode(command))).isEqualTo(command);
      CommandEnvelope signed = command.withSignature("c2lnbmF0dXJl");
      assertThat(CommandCodec.decode(CommandCodec.encode(signed))).isEqualTo(signed);
    }
  }

  @Test
  void encodesTheSpecAsReadableJsonWithTheSignatureAsAnExtension() throws Exception {
    CommandEnvelope signed = Fixtures.apply("vgpu-h200-0", 3).withSignature("c2ln");
    ObjectNode json = (ObjectNode) EventCodec.mapper().readTree(CommandCodec.encode(signed));

    assertThat(json.get("type").asText()).isEqualTo("io.fleetwave.command.apply-node-spec.v1");
    assertThat(json.get("subject").asText()).isEqualTo("vgpu-h200-0");
    assertThat(json.get("signature").asText()).isEqualTo("c2ln");
    assertThat(json.at("/data/spec/gpus/0/instances/1g.18gb").asInt()).isEqualTo(2);
    assertThat(json.at("/data/spec/gpus/0/vgpuTypes/3").asText()).isEqualTo("H200-3-71C");
    assertThat(json.at("/data/spec/gate").asText()).isEqualTo("hold-until-applied");
    assertThat(json.at("/data/spec/driverVersion").isNull()).isTrue();
  }

  @Test
  void rejectsAnUnknownCommandType() {
    assertRejected(
        edit(j -> j.put("type", "io.fleetwave.command.self-destruct.v1")), "unknown event type");
  }

  @Test
  void rejectsANewerCommandVersion() {
    assertRejected(
        edit(j -> j.put("type", "io.fleetwave.command.apply-node-spec.v2")),
        "newer than this build understands (up to v1)");
  }

  @Test
  void rejectsANodeEventOnTheCommandTopic() {
    byte[] heartbeat =
        EventCodec.encode(
            Envelope.of(CONTROL_PLANE, "vgpu-h200-0", ISSUED, 1, 0, new Heartbeat("boot", 1)));

    assertRejected(heartbeat, "is not a command");
  }

  @Test
  void rejectsASpecWithAnInvalidFieldNamingIt() {
    assertRejected(
        edit(j -> ((ObjectNode) j.at("/data/spec/gpus/0/instances")).put("1g.18gb", 0)),
        "field 'spec.gpus[0]': field 'instances.1g.18gb' must be positive: 0");
  }

  @Test
  void rejectsVgpuTypesOnVfsThatAreNotWanted() {
    assertRejected(
        edit(j -> ((ObjectNode) j.at("/data/spec/gpus/0")).put("vfs", 2)),
        "field 'vgpuTypes' names VF 3 but 'vfs' is 2");
  }

  @Test
  void rejectsAMissingGeneration() {
    assertRejected(edit(j -> ((ObjectNode) j.at("/data/spec")).remove("generation")), "generation");
  }

  @Test
  void rejectsAnExpiryBeforeTheIssue() {
    byte[] bytes =
        edit(j -> ((ObjectNode) j.get("data")).put("expiresAt", ISSUED.minusSeconds(1).toString()));

    assertRejected(bytes, "field 'expiresAt'");
  }

  @Test
  void rejectsANonStringSignature() {
    assertRejected(edit(j -> j.put("signature", 42)), "signature");
  }

  private static byte[] edit(Consumer<ObjectNode> change) {
    return RecordEdits.edited(CommandCodec.encode(Fixtures.apply("vgpu-h200-0", 3)), change);
  }

  private static void assertRejected(byte[] bytes, String reasonPart) {
    assertThatThrownBy(() -> CommandCodec.decode(bytes))
        .isInstanceOf(EventRejectedException.class)
        .hasMessageContaining(reasonPart);
  }
}
