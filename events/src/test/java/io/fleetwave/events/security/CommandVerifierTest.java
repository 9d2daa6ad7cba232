package io.fleetwave.events.security;

import static io.fleetwave.events.command.Fixtures.ISSUED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.command.CommandCodec;
import io.fleetwave.events.command.CommandEnvelope;
import io.fleetwave.events.command.Fixtures;
import java.nio.charset.StandardCharsets;
import java.security.KeyPairGenerator;
import java.time.Instant;
import java.util.Base64;
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
    CommandEnvelope forged = CommandSigner.generate().sign(Fixtures.apply(NODE, 3));

    assertRejected(AGENT.verify(forged, NODE, 0, NOW), Rejection.FORGED, "does not verify");
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
    CommandEnvelope moved =
        new CommandEnvelope(
            signed.id(),
            signed.source(),
            signed.type(),
            NODE,
            signed.time(),
            signed.data(),
            signed.signature());

    assertRejected(AGENT.verify(moved, NODE, 0, NOW), Rejection.FORGED, "does not verify");
  }

  @Test
  void rejectsASignatureThatIsNotBase64() {
    CommandEnvelope garbled = Fixtures.apply(NODE, 3).withSignature("not base64 !");

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
    CommandEnvelope readdressed =
        CONTROL_PLANE.sign(
            new CommandEnvelope(
                apply.id(), apply.source(), apply.type(), NODE, apply.time(), apply.data(), null));

    assertRejected(
        AGENT.verify(readdressed, NODE, 0, NOW),
        Rejection.WRONG_NODE,
        "spec is for node 'vgpu-h200-1'");
  }

  @Test
  void rejectsAnExpiredCommand() {
    CommandEnvelope signed = CONTROL_PLANE.sign(Fixtures.reset(NODE, 0, 5));

    assertRejected(
        AGENT.verify(signed, NODE, 0, Fixtures.EXPIRES), Rejection.EXPIRED, "expired at");
    assertThat(AGENT.verify(signed, NODE, 0, Fixtures.EXPIRES.minusMillis(1)).accepted()).isTrue();
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
    assertThat(
            CommandVerifier.fromX509(CONTROL_PLANE.publicKeyPem())
                .verify(CONTROL_PLANE.sign(Fixtures.apply(NODE, 3)), NODE, 0, NOW)
                .accepted())
        .isTrue();
  }

  @Test
  void aConfiguredPrivateKeyYieldsItsOwnPublicKey() throws Exception {
    var pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    CommandSigner configured =
        CommandSigner.fromPkcs8(Base64.getEncoder().encodeToString(pair.getPrivate().getEncoded()));

    assertThat(configured.publicKeyPem())
        .contains(Base64.getEncoder().encodeToString(pair.getPublic().getEncoded()));
    assertThat(
            CommandVerifier.fromX509(configured.publicKeyPem())
                .verify(configured.sign(Fixtures.apply(NODE, 3)), NODE, 0, NOW)
                .accepted())
        .isTrue();
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
}
