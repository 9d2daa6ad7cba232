package io.fleetwave.events.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NodeEventVerifierTest {
  private static final byte[] VALUE =
      "{\"subject\":\"gpu-1\",\"type\":\"io.fleetwave.node.heartbeat.v1\"}"
          .getBytes(StandardCharsets.UTF_8);

  private final NodeEventSigner gpu1 = NodeEventSigner.generate();
  private final NodeEventSigner gpu2 = NodeEventSigner.generate();
  private final Map<String, EnrolledKey> enrolled =
      Map.of(
          gpu1.keyId(), EnrolledKey.of("gpu-1", gpu1.publicKeyPem(), false),
          gpu2.keyId(), EnrolledKey.of("gpu-2", gpu2.publicKeyPem(), false));

  @Test
  void aValueSignedByTheNodesEnrolledKeyIsAccepted() {
    assertThat(verify("gpu-1", VALUE, gpu1.keyId(), gpu1.sign(VALUE), enrolled)).isEmpty();
  }

  @Test
  void anUnsignedRecordIsRefusedAsUnsigned() {
    assertThat(verify("gpu-1", VALUE, null, null, enrolled))
        .hasValueSatisfying(
            r -> {
              assertThat(r.cause()).isEqualTo(NodeEventRefusal.UNSIGNED);
              assertThat(r.reason()).startsWith("unsigned node event: record of node 'gpu-1'");
            });
    assertThat(verify("gpu-1", VALUE, gpu1.keyId(), null, enrolled))
        .map(NodeEventVerifier.Refused::cause)
        .hasValue(NodeEventRefusal.UNSIGNED);
  }

  @Test
  void aRecordSignedByAnotherNodesKeyIsRefusedNamingThatNode() {
    assertThat(verify("gpu-1", VALUE, gpu2.keyId(), gpu2.sign(VALUE), enrolled))
        .hasValueSatisfying(
            r -> {
              assertThat(r.cause()).isEqualTo(NodeEventRefusal.ANOTHER_NODES_KEY);
              assertThat(r.reason())
                  .startsWith("signed by another node's key")
                  .contains("of node 'gpu-2'");
            });
  }

  @Test
  void aSignatureByAnotherKeyUnderTheNodesKeyIdDoesNotVerify() {
    assertThat(verify("gpu-1", VALUE, gpu1.keyId(), gpu2.sign(VALUE), enrolled))
        .map(NodeEventVerifier.Refused::cause)
        .hasValue(NodeEventRefusal.BAD_SIGNATURE);
  }

  @Test
  void aChangedValueOrAnAlteredSignatureSpellingDoesNotVerify() {
    String signature = gpu1.sign(VALUE);
    byte[] changed = VALUE.clone();
    changed[changed.length - 3] ^= 1;
    assertThat(verify("gpu-1", changed, gpu1.keyId(), signature, enrolled))
        .map(NodeEventVerifier.Refused::cause)
        .hasValue(NodeEventRefusal.BAD_SIGNATURE);
    // An Ed25519 signature is 64 bytes: base64 "==" padding, 4 unused bits in the last character.
    char last = signature.charAt(signature.length() - 3);
    String respelled =
        signature.substring(0, signature.length() - 3)
            + (char) (last ^ 1)
            + signature.substring(signature.length() - 2);
    assertThat(verify("gpu-1", VALUE, gpu1.keyId(), respelled, enrolled))
        .map(NodeEventVerifier.Refused::cause)
        .hasValue(NodeEventRefusal.BAD_SIGNATURE);
  }

  @Test
  void aKeyNoNodeEnrolledAndARevokedKeyAreRefused() {
    NodeEventSigner stranger = NodeEventSigner.generate();
    assertThat(verify("gpu-1", VALUE, stranger.keyId(), stranger.sign(VALUE), enrolled))
        .map(NodeEventVerifier.Refused::cause)
        .hasValue(NodeEventRefusal.UNKNOWN_KEY);
    Map<String, EnrolledKey> revoked =
        Map.of(gpu1.keyId(), EnrolledKey.of("gpu-1", gpu1.publicKeyPem(), true));
    assertThat(verify("gpu-1", VALUE, gpu1.keyId(), gpu1.sign(VALUE), revoked))
        .map(NodeEventVerifier.Refused::cause)
        .hasValue(NodeEventRefusal.REVOKED);
  }

  @Test
  void theKeyIdIsDerivedFromTheKeyAndTheKeySurvivesItsPem() {
    NodeEventSigner reread = NodeEventSigner.fromPkcs8(gpu1.privateKeyPem());
    assertThat(reread.keyId()).isEqualTo(gpu1.keyId()).isNotEqualTo(gpu2.keyId());
    assertThat(NodeKeyId.ofPem(gpu1.publicKeyPem())).isEqualTo(gpu1.keyId());
    assertThat(verify("gpu-1", VALUE, gpu1.keyId(), reread.sign(VALUE), enrolled)).isEmpty();
  }

  private static Optional<NodeEventVerifier.Refused> verify(
      String node, byte[] value, String keyId, String signature, Map<String, EnrolledKey> keys) {
    return NodeEventVerifier.verify(node, value, keyId, signature, keys::get);
  }
}
