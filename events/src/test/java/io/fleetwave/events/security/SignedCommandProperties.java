package io.fleetwave.events.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.command.CommandArbitraries;
import io.fleetwave.events.command.CommandCodec;
import io.fleetwave.events.command.CommandEnvelope;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

class SignedCommandProperties {
  private static final CommandSigner SIGNER = CommandSigner.generate();
  private static final CommandVerifier VERIFIER = SIGNER.verifier();

  @Property(tries = 300)
  void everySignedCommandSurvivesTheWireAndVerifies(@ForAll("commands") CommandEnvelope command)
      throws EventRejectedException {
    CommandEnvelope signed = SIGNER.sign(command);

    CommandEnvelope decoded = CommandCodec.decode(CommandCodec.encode(signed));

    assertThat(decoded).isEqualTo(signed);
    assertThat(VERIFIER.verify(decoded, command.subject(), 0, command.time()).accepted()).isTrue();
  }

  /**
   * Any byte changed on the wire: refused by the codec or the verifier, or nothing that matters.
   */
  @Property(tries = 300)
  void aChangedByteIsNeverAcceptedAsADifferentCommand(
      @ForAll("commands") CommandEnvelope command,
      @ForAll @IntRange(min = 0, max = 100_000) int position,
      @ForAll @IntRange(min = 1, max = 255) int delta) {
    CommandEnvelope signed = SIGNER.sign(command);
    byte[] bytes = CommandCodec.encode(signed);
    bytes[position % bytes.length] += (byte) delta;

    CommandEnvelope decoded;
    try {
      decoded = CommandCodec.decode(bytes);
    } catch (EventRejectedException refused) {
      return;
    }
    Verdict verdict = VERIFIER.verify(decoded, command.subject(), 0, command.time());
    if (verdict.accepted()) {
      assertThat(decoded).isEqualTo(signed);
    }
  }

  @Provide
  Arbitrary<CommandEnvelope> commands() {
    return CommandArbitraries.commands();
  }
}
