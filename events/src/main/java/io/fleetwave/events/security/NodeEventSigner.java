package io.fleetwave.events.security;

import java.util.Base64;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * One node's own Ed25519 key: signs the exact bytes of each record value it publishes to
 * fleet.node-events. The signature and the {@link NodeKeyId key id} travel in the record's headers
 * ({@link #KEY_ID_HEADER}, {@link #SIGNATURE_HEADER}), so the value stays the CloudEvents JSON
 * every reader already decodes and the signature covers exactly what was sent (nothing is
 * re-encoded before it is checked). The subject inside the value names the node, so a signed value
 * cannot be passed off as another node's.
 *
 * <p>Once the node has learnt the control plane's agreement key at enrolment ({@link #withMacFor}),
 * each record also carries an HMAC of the same bytes ({@link #MAC_HEADER}), which the control plane
 * checks instead of the signature at a thirtieth to a seventieth of its cost; the signature stays
 * for every other reader (the node itself, finding its own earlier records). Thread-safe.
 */
public final class NodeEventSigner {
  /** Header holding the signing key's id ({@link NodeKeyId}). */
  public static final String KEY_ID_HEADER = "fleetwave-key-id";

  /** Header holding the base64 Ed25519 signature of the record value. */
  public static final String SIGNATURE_HEADER = "fleetwave-signature";

  /** Header holding the base64 HMAC-SHA256 of the record value ({@link NodeEventMacKey}). */
  public static final String MAC_HEADER = "fleetwave-mac";

  private final SigningKeyPair keys;
  private final String keyId;
  private final NodeEventMacKey macKey;

  private NodeEventSigner(SigningKeyPair keys, NodeEventMacKey macKey) {
    this.keys = keys;
    this.keyId = NodeKeyId.of(keys.publicKey());
    this.macKey = macKey;
  }

  /** A fresh key pair, generated on the node: the private half never leaves it. */
  public static NodeEventSigner generate() {
    return new NodeEventSigner(SigningKeyPair.generate(), null);
  }

  /** A key kept by the node (PKCS#8 PEM, as {@link #privateKeyPem()} wrote it). */
  public static NodeEventSigner fromPkcs8(String pem) {
    return new NodeEventSigner(SigningKeyPair.fromPkcs8(pem), null);
  }

  /**
   * The same key, its records also carrying a MAC for the control plane whose agreement key is
   * {@code controlPlaneKey} (as its enrolment answer gave it).
   *
   * @throws IllegalArgumentException when {@code controlPlaneKey} is not an X25519 public key
   */
  public NodeEventSigner withMacFor(String controlPlaneKey) {
    return new NodeEventSigner(
        keys,
        AgreementKey.ofNodeKey(keys.signingKey()).macKeyWithControlPlane(keyId, controlPlaneKey));
  }

  /** The base64 signature of one record value. */
  public String sign(byte[] value) {
    return Base64.getEncoder().encodeToString(keys.sign(value));
  }

  /**
   * The headers a record with this value carries: the key id, the signature and, once a MAC key is
   * agreed, the MAC. Every producer of node events adds them here, so none can forget one.
   */
  public void addHeaders(byte[] value, BiConsumer<String, String> header) {
    Objects.requireNonNull(header, "header");
    header.accept(KEY_ID_HEADER, keyId);
    header.accept(SIGNATURE_HEADER, sign(value));
    if (macKey != null) {
      header.accept(MAC_HEADER, macKey.mac(value));
    }
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
