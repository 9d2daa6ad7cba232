package io.fleetwave.events.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.codec.CommandCodec;
import io.fleetwave.events.command.CommandArbitraries;
import java.util.Base64;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

class SignedCommandProperties {
  private static final CommandSigner SIGNER = CommandSigner.generate();
  private static final CommandVerifier VERIFIER = SIGNER.verifier();
  private static final String ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

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

  /**
   * Strict decoding: a signature is accepted in exactly one spelling. Any character of it changed
   * to any other (base64 letters, padding, whitespace, URL-safe letters) is refused as forged:
   * either the bytes change and the signature does not verify, or they do not and the spelling is
   * not canonical.
   */
  @Property(tries = 1000)
  void aSignatureIsAcceptedInItsCanonicalSpellingOnly(
      @ForAll("commands") CommandEnvelope command,
      @ForAll @IntRange(min = 0, max = 87) int position,
      @ForAll("signatureCharacters") char replacement) {
    CommandEnvelope signed = SIGNER.sign(command);
    String signature = signed.signature();
    Assume.that(signature.charAt(position) != replacement);
    String respelled =
        signature.substring(0, position) + replacement + signature.substring(position + 1);

    Verdict verdict =
        VERIFIER.verify(signed.withSignature(respelled), command.subject(), 0, command.time());

    assertThat(verdict).isInstanceOf(Verdict.Rejected.class);
    assertThat(((Verdict.Rejected) verdict).rejection()).isEqualTo(Rejection.FORGED);
  }

  /**
   * The case the JDK's lenient decoder lets through: the last letter before the padding of a
   * 64-byte signature carries 2 bits and 4 that nobody reads. Changing only those keeps the bytes
   * and is still refused.
   */
  @Property(tries = 300)
  void unusedBitsChangedInTheLastLetterAreRefused(
      @ForAll("commands") CommandEnvelope command,
      @ForAll @IntRange(min = 1, max = 15) int unusedBits) {
    CommandEnvelope signed = SIGNER.sign(command);
    String signature = signed.signature();
    int last = signature.indexOf('=') - 1;
    char respelledLetter = ALPHABET.charAt(ALPHABET.indexOf(signature.charAt(last)) ^ unusedBits);
    String respelled =
        signature.substring(0, last) + respelledLetter + signature.substring(last + 1);
    assertThat(Base64.getDecoder().decode(respelled))
        .isEqualTo(Base64.getDecoder().decode(signature));

    Verdict verdict =
        VERIFIER.verify(signed.withSignature(respelled), command.subject(), 0, command.time());

    assertThat(verdict).isInstanceOf(Verdict.Rejected.class);
    assertThat(((Verdict.Rejected) verdict).reason()).contains("not canonical base64");
  }

  @Provide
  Arbitrary<Character> signatureCharacters() {
    return Arbitraries.of((ALPHABET + "=-_ \n\r\t.").chars().mapToObj(c -> (char) c).toList());
  }

  @Provide
  Arbitrary<CommandEnvelope> commands() {
    return CommandArbitraries.commands();
  }
}
