package io.fleetwave.events.security;

import java.security.PublicKey;
import java.util.Objects;

/**
 * A public key a node enrolled with the control plane.
 *
 * @param node the node it speaks for
 * @param publicKey the Ed25519 public key, in the form its signatures are checked with
 * @param revoked true once an administrator revoked the node: nothing it signs is accepted again
 * @param macKey the key of the node's event MACs ({@link AgreementKey#macKeyWithNode}); null when
 *     the reader holds no agreement key (no command key configured) or the key has no usable X25519
 *     form: its records are then checked by their signature
 */
public record EnrolledKey(
    String node, NodePublicKey publicKey, boolean revoked, NodeEventMacKey macKey) {
  public EnrolledKey {
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(publicKey, "publicKey");
  }

  /** A key whose records are checked by their signature alone. */
  public EnrolledKey(String node, NodePublicKey publicKey, boolean revoked) {
    this(node, publicKey, revoked, null);
  }

  /** From the stored X.509 PEM. */
  public static EnrolledKey of(String node, String publicKeyPem, boolean revoked) {
    return new EnrolledKey(node, NodePublicKey.parse(publicKeyPem), revoked);
  }

  public String keyId() {
    return publicKey.id();
  }

  /** An Ed25519 X.509 public key (PEM or base64), refused with the reason if it is not one. */
  public static PublicKey parsePublicKey(String pem) {
    try {
      return Ed25519Keys.publicKey(pem);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "node key: " + e.getMessage().replace("command verification key", "public key"), e);
    }
  }
}
