package io.fleetwave.events.security;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.Base64;
import java.util.Objects;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

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

  private final PrivateKey privateKey;
  private final Ed25519PrivateKeyParameters signingKey;
  private final PublicKey publicKey;
  private final String keyId;

  private NodeEventSigner(PrivateKey privateKey, PublicKey publicKey) {
    this.privateKey = Objects.requireNonNull(privateKey, "privateKey");
    this.signingKey = Ed25519Signatures.signingKey(privateKey);
    this.publicKey = Objects.requireNonNull(publicKey, "publicKey");
    this.keyId = NodeKeyId.of(publicKey);
  }

  /** A fresh key pair, generated on the node: the private half never leaves it. */
  public static NodeEventSigner generate() {
    try {
      KeyPair pair = KeyPairGenerator.getInstance(Ed25519Keys.ALGORITHM).generateKeyPair();
      return new NodeEventSigner(pair.getPrivate(), pair.getPublic());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK offers no Ed25519 key generator", e);
    }
  }

  /** A key kept by the node (PKCS#8 PEM, as {@link #privateKeyPem()} wrote it). */
  public static NodeEventSigner fromPkcs8(String pem) {
    PrivateKey key = Ed25519Keys.privateKey(pem);
    return new NodeEventSigner(key, Ed25519Keys.publicKeyOf(key));
  }

  /** The base64 signature of one record value. */
  public String sign(byte[] value) {
    return Base64.getEncoder().encodeToString(Ed25519Signatures.sign(signingKey, value));
  }

  public String keyId() {
    return keyId;
  }

  /** The public key as X.509 PEM: what the node enrolls. */
  public String publicKeyPem() {
    return Ed25519Keys.pem("PUBLIC KEY", publicKey.getEncoded());
  }

  /** The private key as PKCS#8 PEM, for the node's own state directory (mode 0600). */
  public String privateKeyPem() {
    return Ed25519Keys.pem("PRIVATE KEY", privateKey.getEncoded());
  }
}
