package io.fleetwave.events.security;

import java.util.Base64;

/**
 * One node's own Ed25519 key: signs the exact bytes of each record value it publishes to
 * fleet.node-events. The signature and the {@link NodeKeyId key id} travel in the record's headers
 * ({@link #KEY_ID_HEADER}, {@link #SIGNATURE_HEADER}), so the value stays the CloudEvents JSON
 * every reader already decodes and the signature covers exactly what was sent (nothing is
 * re-encoded before it is checked). The subject inside the value names the node, so a signed value
 * cannot be passed off as another node's. Thread-safe.
 */
public final class NodeEventSigner {
  /** Header holding the signing key's id ({@link NodeKeyId}). */
  public static final String KEY_ID_HEADER = "fleetwave-key-id";

  /** Header holding the base64 Ed25519 signature of the record value. */
  public static final String SIGNATURE_HEADER = "fleetwave-signature";

  private final SigningKeyPair keys;
  private final String keyId;

  private NodeEventSigner(SigningKeyPair keys) {
    this.keys = keys;
    this.keyId = NodeKeyId.of(keys.publicKey());
  }

  /** A fresh key pair, generated on the node: the private half never leaves it. */
  public static NodeEventSigner generate() {
    return new NodeEventSigner(SigningKeyPair.generate());
  }

  /** A key kept by the node (PKCS#8 PEM, as {@link #privateKeyPem()} wrote it). */
  public static NodeEventSigner fromPkcs8(String pem) {
    return new NodeEventSigner(SigningKeyPair.fromPkcs8(pem));
  }

  /** The base64 signature of one record value. */
  public String sign(byte[] value) {
    return Base64.getEncoder().encodeToString(keys.sign(value));
  }

  public String keyId() {
    return keyId;
  }

  /** The public key as X.509 PEM: what the node enrolls. */
  public String publicKeyPem() {
    return keys.publicKeyPem();
  }

  /** The private key as PKCS#8 PEM, for the node's own state directory (mode 0600). */
  public String privateKeyPem() {
    return keys.privateKeyPem();
  }
}
