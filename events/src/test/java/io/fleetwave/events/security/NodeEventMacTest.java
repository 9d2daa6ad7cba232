package io.fleetwave.events.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The node-event MAC: agreed by a node and the control plane from keys they already hold, accepted
 * in place of the signature only under the key the node bound to itself, and never a way for
 * someone holding neither private key to speak for a node.
 */
class NodeEventMacTest {
  private static final byte[] VALUE =
      "{\"subject\":\"gpu-1\",\"type\":\"io.fleetwave.node.heartbeat.v1\"}"
          .getBytes(StandardCharsets.UTF_8);

  private final CommandSigner controlPlane = CommandSigner.generate();
  private final AgreementKey controlPlaneKey = controlPlane.agreementKey();
  private final NodeEventSigner gpu1 =
      NodeEventSigner.generate().withMacFor(controlPlaneKey.publicKey());
  private final NodeEventSigner gpu2 =
      NodeEventSigner.generate().withMacFor(controlPlaneKey.publicKey());
  private final Map<String, EnrolledKey> enrolled = new HashMap<>();

  NodeEventMacTest() {
    enrolled.put(gpu1.keyId(), enrolledWithMac("gpu-1", gpu1));
    enrolled.put(gpu2.keyId(), enrolledWithMac("gpu-2", gpu2));
  }

  @Test
  void bothEndsAgreeOnTheKeyAndTheControlPlaneAcceptsTheMacWithoutTheSignature() {
    Map<String, String> headers = headers(gpu1, VALUE);
    assertThat(headers)
        .containsKeys(
            NodeEventSigner.KEY_ID_HEADER,
            NodeEventSigner.SIGNATURE_HEADER,
            NodeEventSigner.MAC_HEADER);
    // The MAC alone is enough: a signature of something else beside it is never looked at.
    assertThat(
            verify(
                "gpu-1",
                VALUE,
                gpu1.keyId(),
                gpu1.sign("other".getBytes(StandardCharsets.UTF_8)),
                headers.get(NodeEventSigner.MAC_HEADER)))
        .isEmpty();
    assertThat(verify("gpu-1", VALUE, gpu1.keyId(), null, headers.get(NodeEventSigner.MAC_HEADER)))
        .isEmpty();
  }

  @Test
  void theSameKeysAgreeTheSameMacKeyAfterARestartFromThePem() {
    NodeEventSigner reread =
        NodeEventSigner.fromPkcs8(gpu1.privateKeyPem()).withMacFor(controlPlaneKey.publicKey());
    CommandSigner controlPlaneReread = CommandSigner.fromPkcs8(controlPlane.privateKeyPem());
    assertThat(controlPlaneReread.agreementKey().publicKey())
        .isEqualTo(controlPlaneKey.publicKey());
    assertThat(headers(reread, VALUE).get(NodeEventSigner.MAC_HEADER))
        .isEqualTo(headers(gpu1, VALUE).get(NodeEventSigner.MAC_HEADER));
  }

  @Test
  void anAlteredValueOrMacIsRefusedWhenNoSignatureStandsBehindIt() {
    String mac = headers(gpu1, VALUE).get(NodeEventSigner.MAC_HEADER);
    byte[] changed = VALUE.clone();
    changed[changed.length - 3] ^= 1;
    assertThat(verify("gpu-1", changed, gpu1.keyId(), null, mac))
        .map(NodeEventVerifier.Refused::cause)
        .hasValue(NodeEventRefusal.BAD_MAC);
    // HMAC-SHA256 is 32 bytes: one "=" of padding, 2 unused bits in the last character.
    char last = mac.charAt(mac.length() - 2);
    String respelled = mac.substring(0, mac.length() - 2) + (char) (last ^ 1) + "=";
    assertThat(verify("gpu-1", VALUE, gpu1.keyId(), null, respelled))
        .map(NodeEventVerifier.Refused::cause)
        .hasValue(NodeEventRefusal.BAD_MAC);
    // With the node's signature, a MAC that does not match falls back to the signature.
    assertThat(
            NodeEventVerifier.check(
                "gpu-1", VALUE, gpu1.keyId(), gpu1.sign(VALUE), respelled, enrolled::get))
        .isEqualTo(new NodeEventVerifier.Accepted(NodeEventVerifier.Proof.SIGNATURE));
    assertThat(
            NodeEventVerifier.check(
                "gpu-1", VALUE, gpu1.keyId(), gpu1.sign(VALUE), mac, enrolled::get))
        .isEqualTo(new NodeEventVerifier.Accepted(NodeEventVerifier.Proof.MAC));
  }

  @Test
  void anotherNodesMacUnderThisNodesKeyIdIsRefused() {
    String mac = headers(gpu2, VALUE).get(NodeEventSigner.MAC_HEADER);
    assertThat(verify("gpu-1", VALUE, gpu1.keyId(), null, mac))
        .map(NodeEventVerifier.Refused::cause)
        .hasValue(NodeEventRefusal.BAD_MAC);
    assertThat(verify("gpu-1", VALUE, gpu2.keyId(), null, mac))
        .map(NodeEventVerifier.Refused::cause)
        .hasValue(NodeEventRefusal.ANOTHER_NODES_KEY);
  }

  @Test
  void aMacKeyAgreedWithAnotherControlPlaneIsNotThisOnes() {
    NodeEventSigner elsewhere =
        NodeEventSigner.fromPkcs8(gpu1.privateKeyPem())
            .withMacFor(CommandSigner.generate().agreementKey().publicKey());
    String mac = headers(elsewhere, VALUE).get(NodeEventSigner.MAC_HEADER);
    assertThat(verify("gpu-1", VALUE, gpu1.keyId(), null, mac))
        .map(NodeEventVerifier.Refused::cause)
        .hasValue(NodeEventRefusal.BAD_MAC);
  }

  @Test
  void aRevokedNodesValidMacIsRefused() {
    EnrolledKey key = enrolled.get(gpu1.keyId());
    enrolled.put(gpu1.keyId(), new EnrolledKey("gpu-1", key.publicKey(), true, key.macKey()));
    assertThat(
            verify("gpu-1", VALUE, gpu1.keyId(), null, headers(gpu1, VALUE).get("fleetwave-mac")))
        .map(NodeEventVerifier.Refused::cause)
        .hasValue(NodeEventRefusal.REVOKED);
  }

  @Test
  void aMacToAControlPlaneThatAgreedNoKeyForTheNodeIsRefusedWithoutASignature() {
    enrolled.put(gpu1.keyId(), EnrolledKey.of("gpu-1", gpu1.publicKeyPem(), false));
    assertThat(
            verify("gpu-1", VALUE, gpu1.keyId(), null, headers(gpu1, VALUE).get("fleetwave-mac")))
        .hasValueSatisfying(
            r -> {
              assertThat(r.cause()).isEqualTo(NodeEventRefusal.BAD_MAC);
              assertThat(r.reason()).contains("the node agreed no MAC key");
            });
  }

  /**
   * The node agrees with its own key's X25519 form, which the control plane computes from the
   * enrolled public key: the two halves of the agreement must meet for any key.
   */
  @Test
  void theControlPlaneComputesTheNodesAgreementKeyFromItsEnrolledKey() {
    for (int i = 0; i < 50; i++) {
      NodeEventSigner node = NodeEventSigner.generate();
      String mac =
          headers(node.withMacFor(controlPlaneKey.publicKey()), VALUE)
              .get(NodeEventSigner.MAC_HEADER);
      NodeEventMacKey atControlPlane =
          controlPlaneKey.macKeyWithNode(NodePublicKey.parse(node.publicKeyPem()));
      assertThat(atControlPlane.verifies(VALUE, mac)).isTrue();
      assertThat(atControlPlane.verifies(VALUE, headers(gpu1, VALUE).get("fleetwave-mac")))
          .isFalse();
    }
  }

  /** Points of small order would make the shared secret known to anyone: never agreed with. */
  @Test
  void aKeyWithoutAUsableX25519FormIsRefused() {
    byte[] identity = new byte[32];
    identity[0] = 1; // y = 1: the neutral point, whose u would divide by zero
    assertThatThrownBy(() -> AgreementKey.montgomeryForm(identity))
        .hasMessageContaining("no X25519 form");
    byte[] orderFour = new byte[32]; // y = 0: u = 1, a point of order 4
    assertThatThrownBy(
            () ->
                NodeEventSigner.generate()
                    .withMacFor(
                        Base64.getEncoder().encodeToString(AgreementKey.montgomeryForm(orderFour))))
        .hasMessageContaining("small order");
  }

  @Test
  void malformedAgreementKeysAreRefusedNamingWhatIsWrong() {
    NodeEventSigner node = NodeEventSigner.generate();
    assertThatThrownBy(() -> node.withMacFor("not base64!"))
        .hasMessageContaining("not valid base64");
    assertThatThrownBy(() -> node.withMacFor(Base64.getEncoder().encodeToString(new byte[31])))
        .hasMessageContaining("must be 32 bytes of X25519, got 31");
    // The all-zero point has small order: the shared secret would be zero whoever computes it.
    assertThatThrownBy(() -> node.withMacFor(Base64.getEncoder().encodeToString(new byte[32])))
        .hasMessageContaining("small order");
  }

  private EnrolledKey enrolledWithMac(String node, NodeEventSigner signer) {
    NodePublicKey key = NodePublicKey.parse(signer.publicKeyPem());
    return new EnrolledKey(node, key, false, controlPlaneKey.macKeyWithNode(key));
  }

  private static Map<String, String> headers(NodeEventSigner signer, byte[] value) {
    Map<String, String> headers = new HashMap<>();
    signer.addHeaders(value, headers::put);
    return headers;
  }

  /** Empty when the record is accepted, else its refusal. */
  private Optional<NodeEventVerifier.Refused> verify(
      String node, byte[] value, String keyId, String signature, String mac) {
    return NodeEventVerifier.check(node, value, keyId, signature, mac, enrolled::get)
            instanceof NodeEventVerifier.Refused refused
        ? Optional.of(refused)
        : Optional.empty();
  }
}
