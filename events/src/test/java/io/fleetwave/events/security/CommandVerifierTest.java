package io.fleetwave.events.security;

import static io.fleetwave.events.command.Fixtures.ISSUED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.codec.CommandCodec;
import io.fleetwave.events.command.CommandStream;
import io.fleetwave.events.command.Fixtures;
import java.nio.charset.StandardCharsets;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandVerifierTest {
  private static final String NODE = "vgpu-h200-0";
  private static final Instant NOW = ISSUED.plusSeconds(10);
  private static final CommandSigner CONTROL_PLANE = CommandSigner.generate();
  private static final CommandVerifier AGENT = CONTROL_PLANE.verifier();

  @Test
  void acceptsASignedSpecForThisNode() throws Exception {
    CommandEnvelope signed = CONTROL_PLANE.sign(Fixtures.apply(NODE, 3));

    Verdict verdict = AGENT.verify(CommandCodec.decode(CommandCodec.encode(signed)), NODE, 2, NOW);

    assertThat(verdict).isEqualTo(new Verdict.Accepted(signed));
  }

  @Test
  void acceptsAnOldSpecAfterALostDiskBecauseSpecsDoNotExpire() {
    CommandEnvelope signed = CONTROL_PLANE.sign(Fixtures.apply(NODE, 3));

    assertThat(AGENT.verify(signed, NODE, 0, ISSUED.plusSeconds(86_400 * 365)).accepted()).isTrue();
  }

  @Test
  void rejectsAnUnsignedCommand() {
    assertRejected(
        AGENT.verify(Fixtures.apply(NODE, 3), NODE, 0, NOW), Rejection.UNSIGNED, "no signature");
  }

  @Test
  void rejectsASignatureFromAnotherKey() {
    CommandEnvelope byImpostor = CommandSigner.generate().sign(Fixtures.apply(NODE, 3));
    CommandEnvelope claimingOurKey =
        byImpostor.withSignature(CONTROL_PLANE.kid(), byImpostor.signature());

    assertRejected(AGENT.verify(byImpostor, NODE, 0, NOW), Rejection.UNKNOWN_KEY, "not trust");
    assertRejected(AGENT.verify(claimingOurKey, NODE, 0, NOW), Rejection.FORGED, "does not verify");
  }

  @Test
  void rejectsASignatureSpelledWithAlteredUnusedBase64Bits() throws Exception {
    CommandEnvelope signed = CONTROL_PLANE.sign(Fixtures.apply(NODE, 3));
    String signature = signed.signature();
    // 64 bytes: the last group "Xy==" carries 2 bits in y and 4 bits nobody reads.
    int last = signature.indexOf('=') - 1;
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char other = alphabet.charAt(alphabet.indexOf(signature.charAt(last)) ^ 1);
    String altered = signature.substring(0, last) + other + signature.substring(last + 1);
    assertThat(java.util.Base64.getDecoder().decode(altered))
        .as("the same signature bytes")
        .isEqualTo(java.util.Base64.getDecoder().decode(signature));
    String json = new String(CommandCodec.encode(signed), StandardCharsets.UTF_8);

    CommandEnvelope decoded =
        CommandCodec.decode(json.replace(signature, altered).getBytes(StandardCharsets.UTF_8));

    assertRejected(AGENT.verify(decoded, NODE, 0, NOW), Rejection.FORGED, "not canonical base64");
  }

  @Test
  void rejectsATamperedByte() throws Exception {
    byte[] bytes = CommandCodec.encode(CONTROL_PLANE.sign(Fixtures.apply(NODE, 3)));
    String json = new String(bytes, StandardCharsets.UTF_8);
    assertThat(json).contains("\"1g.18gb\":2");
    byte[] tampered =
        json.replace("\"1g.18gb\":2", "\"1g.18gb\":3").getBytes(StandardCharsets.UTF_8);

    CommandEnvelope decoded = CommandCodec.decode(tampered);

    assertThat(decoded.data()).isNotEqualTo(Fixtures.apply(NODE, 3).data());
    assertRejected(AGENT.verify(decoded, NODE, 0, NOW), Rejection.FORGED, "does not verify");
  }

  @Test
  void rejectsASignatureMovedToAnotherNode() {
    CommandEnvelope signed = CONTROL_PLANE.sign(Fixtures.reset("other-node", 0, 5));
    CommandEnvelope moved = addressedTo(NODE, signed);

    assertRejected(AGENT.verify(moved, NODE, 0, NOW), Rejection.FORGED, "does not verify");
  }

  @Test
  void rejectsASignatureThatIsNotBase64() {
    CommandEnvelope garbled =
        Fixtures.apply(NODE, 3).withSignature(CONTROL_PLANE.kid(), "not base64 !");

    assertRejected(AGENT.verify(garbled, NODE, 0, NOW), Rejection.FORGED, "not valid base64");
  }

  @Test
  void rejectsACommandForAnotherNode() {
    CommandEnvelope signed = CONTROL_PLANE.sign(Fixtures.reset("vgpu-h200-1", 0, 5));

    assertRejected(
        AGENT.verify(signed, NODE, 0, NOW),
        Rejection.WRONG_NODE,
        "addressed to node 'vgpu-h200-1', this is 'vgpu-h200-0'");
  }

  @Test
  void rejectsASpecWhoseBodyNamesAnotherNode() {
    CommandEnvelope apply = Fixtures.apply("vgpu-h200-1", 3);
    CommandEnvelope readdressed = CONTROL_PLANE.sign(addressedTo(NODE, apply));

    assertRejected(
        AGENT.verify(readdressed, NODE, 0, NOW),
        Rejection.WRONG_NODE,
        "spec is for node 'vgpu-h200-1'");
  }

  @Test
  void rejectsAnExpiredCommand() {
    CommandEnvelope signed = CONTROL_PLANE.sign(Fixtures.reset(NODE, 0, 5));

    Instant pastTolerance = Fixtures.EXPIRES.plus(CommandVerifier.DEFAULT_CLOCK_SKEW);
    assertRejected(
        AGENT.verify(signed, NODE, 0, pastTolerance),
        Rejection.EXPIRED,
        "expired at " + Fixtures.EXPIRES);
    assertThat(AGENT.verify(signed, NODE, 0, pastTolerance.minusMillis(1)).accepted()).isTrue();
  }

  @Test
  void theClockSkewToleranceIsConfigurable() {
    CommandEnvelope signed = CONTROL_PLANE.sign(Fixtures.reset(NODE, 0, 5));
    CommandVerifier strict = AGENT.withClockSkew(Duration.ZERO);

    assertRejected(strict.verify(signed, NODE, 0, Fixtures.EXPIRES), Rejection.EXPIRED, "PT0S");
    assertRejected(
        strict.verify(signed, NODE, 0, ISSUED.minusMillis(1)),
        Rejection.NOT_YET_VALID,
        "later than the agent clock");
    assertThat(strict.verify(signed, NODE, 0, ISSUED).accepted()).isTrue();
  }

  @Test
  void rejectsACommandIssuedLaterThanTheAgentClockPlusTheSkew() {
    CommandEnvelope signed = CONTROL_PLANE.sign(Fixtures.reset(NODE, 0, 5));
    Instant agentClock = ISSUED.minus(CommandVerifier.DEFAULT_CLOCK_SKEW).minusMillis(1);

    assertRejected(
        AGENT.verify(signed, NODE, 0, agentClock),
        Rejection.NOT_YET_VALID,
        "issued at " + ISSUED + ", later than the agent clock " + agentClock);
    assertThat(AGENT.verify(signed, NODE, 0, agentClock.plusMillis(1)).accepted()).isTrue();
  }

  @Test
  void rejectsASpecOnTheCommandsStreamAndACommandOnTheDesiredStream() {
    CommandEnvelope spec = CONTROL_PLANE.sign(Fixtures.apply(NODE, 3));
    CommandEnvelope reset = CONTROL_PLANE.sign(Fixtures.reset(NODE, 0, 5));

    assertRejected(
        AGENT.verify(spec, CommandStream.COMMANDS, NODE, 0, NOW),
        Rejection.WRONG_STREAM,
        "signed as a desired-spec and arrived on the one-shot-command stream");
    assertRejected(
        AGENT.verify(reset, CommandStream.DESIRED, NODE, 0, NOW),
        Rejection.WRONG_STREAM,
        "signed as a one-shot-command and arrived on the desired-spec stream");
    assertThat(AGENT.verify(spec, CommandStream.DESIRED, NODE, 0, NOW).accepted()).isTrue();
    assertThat(AGENT.verify(reset, CommandStream.COMMANDS, NODE, 0, NOW).accepted()).isTrue();
  }

  @Test
  void theSignatureCoversTheStreamItWasIssuedFor() {
    CommandEnvelope spec = Fixtures.apply(NODE, 3).withSignature(CONTROL_PLANE.kid(), null);
    byte[] input = CommandCodec.signingInput(spec);

    assertThat(new String(input, StandardCharsets.UTF_8))
        .startsWith(
            "fleetwave-command-signature/v2\ndesired-spec\n"
                + CONTROL_PLANE.kid()
                + "\nio.fleetwave.command.apply-node-spec.v1\n");
  }

  @Test
  void rejectsARecordThatNamesNoKeyAsFromBeforeKeyIds() {
    CommandEnvelope signed = CONTROL_PLANE.sign(Fixtures.apply(NODE, 3));
    CommandEnvelope legacy = signed.withSignature(null, signed.signature());

    assertRejected(
        AGENT.verify(legacy, NODE, 0, NOW),
        Rejection.NO_KEY_ID,
        "names no signing key (kid): records signed before key ids are refused");
  }

  @Test
  void aRotationTrustsBothKeysThenRefusesTheRetiredOne() {
    CommandSigner next = CommandSigner.generate();
    CommandEnvelope byOld = CONTROL_PLANE.sign(Fixtures.apply(NODE, 3));
    CommandEnvelope byNew = next.sign(Fixtures.apply(NODE, 3));
    CommandVerifier during =
        CommandVerifier.trusting(
            TrustedKeys.of(List.of(CONTROL_PLANE.publicKeyPem(), next.publicKeyPem())));
    CommandVerifier after = CommandVerifier.trusting(TrustedKeys.of(List.of(next.publicKeyPem())));

    assertThat(during.verify(byOld, NODE, 0, NOW).accepted()).isTrue();
    assertThat(during.verify(byNew, NODE, 0, NOW).accepted()).isTrue();
    assertThat(after.verify(byNew, NODE, 0, NOW).accepted()).isTrue();
    assertRejected(
        after.verify(byOld, NODE, 0, NOW),
        Rejection.UNKNOWN_KEY,
        "signed with key " + CONTROL_PLANE.kid() + ", which this agent does not trust");
  }

  @Test
  void aSignatureRelabelledWithAnotherTrustedKeyIdDoesNotVerify() {
    CommandSigner other = CommandSigner.generate();
    CommandVerifier both =
        CommandVerifier.trusting(
            TrustedKeys.of(List.of(CONTROL_PLANE.publicKeyPem(), other.publicKeyPem())));
    CommandEnvelope signed = CONTROL_PLANE.sign(Fixtures.apply(NODE, 3));

    assertRejected(
        both.verify(signed.withSignature(other.kid(), signed.signature()), NODE, 0, NOW),
        Rejection.FORGED,
        "does not verify against the control plane's key " + other.kid());
  }

  @Test
  void theKeyIdIsTheSha256OfThePublicKeyDer() throws Exception {
    byte[] der =
        Base64.getMimeDecoder()
            .decode(
                CONTROL_PLANE
                    .publicKeyPem()
                    .replace("-----BEGIN PUBLIC KEY-----", "")
                    .replace("-----END PUBLIC KEY-----", ""));
    byte[] sha256 = java.security.MessageDigest.getInstance("SHA-256").digest(der);

    assertThat(CONTROL_PLANE.kid())
        .isEqualTo("sha256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256));
    assertThat(TrustedKeys.kidOf(CONTROL_PLANE.publicKeyPem())).isEqualTo(CONTROL_PLANE.kid());
    assertThat(CONTROL_PLANE.sign(Fixtures.apply(NODE, 3)).kid()).isEqualTo(CONTROL_PLANE.kid());
  }

  @Test
  void rejectsAReplayedGeneration() {
    CommandEnvelope signed = CONTROL_PLANE.sign(Fixtures.apply(NODE, 3));

    assertRejected(
        AGENT.verify(signed, NODE, 3, NOW),
        Rejection.REPLAYED,
        "generation 3 is not newer than the applied generation 3");
    assertRejected(AGENT.verify(signed, NODE, 7, NOW), Rejection.REPLAYED, "generation 3");
  }

  @Test
  void keysLoadFromPemAndFromBareBase64() throws Exception {
    var pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    String privateBase64 = Base64.getEncoder().encodeToString(pair.getPrivate().getEncoded());
    String publicBase64 = Base64.getEncoder().encodeToString(pair.getPublic().getEncoded());
    CommandSigner fromBase64 = CommandSigner.fromPkcs8(privateBase64);
    CommandSigner fromPem = CommandSigner.fromPkcs8(fromBase64.privateKeyPem());
    CommandEnvelope signed = fromPem.sign(Fixtures.apply(NODE, 3));

    assertThat(CommandVerifier.fromX509(publicBase64).verify(signed, NODE, 0, NOW).accepted())
        .isTrue();
    assertThat(itsPublicKeyAcceptsWhatItSigns(CONTROL_PLANE)).isTrue();
  }

  @Test
  void aConfiguredPrivateKeyYieldsItsOwnPublicKey() throws Exception {
    var pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    CommandSigner configured =
        CommandSigner.fromPkcs8(Base64.getEncoder().encodeToString(pair.getPrivate().getEncoded()));

    assertThat(configured.publicKeyPem())
        .contains(Base64.getEncoder().encodeToString(pair.getPublic().getEncoded()));
    assertThat(itsPublicKeyAcceptsWhatItSigns(configured)).isTrue();
  }

  @Test
  void badKeyConfigurationSaysWhatIsWrong() {
    assertThatThrownBy(() -> CommandSigner.fromPkcs8(" "))
        .hasMessage("command signing key is not configured (empty)");
    assertThatThrownBy(
            () ->
                CommandVerifier.fromX509(
                    "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"))
        .hasMessageContaining("must be a PEM 'PUBLIC KEY' block");
    assertThatThrownBy(() -> CommandVerifier.fromX509("%%%"))
        .hasMessageContaining("not valid base64");
    assertThatThrownBy(
            () ->
                CommandVerifier.fromX509(
                    CONTROL_PLANE.privateKeyPem().replace("PRIVATE", "PUBLIC")))
        .hasMessageContaining("not an Ed25519 X.509 public key");
  }

  private static void assertRejected(Verdict verdict, Rejection rejection, String reasonPart) {
    assertThat(verdict).isInstanceOf(Verdict.Rejected.class);
    Verdict.Rejected rejected = (Verdict.Rejected) verdict;
    assertThat(rejected.rejection()).isEqualTo(rejection);
    assertThat(rejected.reason()).contains(reasonPart);
  }

  /** The envelope with another subject, everything else (the signature too) kept. */
  private static CommandEnvelope addressedTo(String node, CommandEnvelope command) {
    return new CommandEnvelope(
        command.id(),
        command.source(),
        command.type(),
        node,
        command.time(),
        command.data(),
        command.kid(),
        command.signature());
  }

  /** Whether a verifier of the signer's public key PEM accepts a command the signer signed. */
  private static boolean itsPublicKeyAcceptsWhatItSigns(CommandSigner signer) {
    return CommandVerifier.fromX509(signer.publicKeyPem())
        .verify(signer.sign(Fixtures.apply(NODE, 3)), NODE, 0, NOW)
        .accepted();
  }
}
