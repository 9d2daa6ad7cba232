package io.fleetwave.events.security;

import java.security.GeneralSecurityException;
import java.security.PublicKey;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;

/**
 * An enrolled node's Ed25519 public key, read from its PEM once and held in the form its signatures
 * are checked with. Reading the PEM and converting the key for Bouncy Castle (which decodes the
 * key's curve point) cost about as much as a tenth of a check; done for every record, it was 6 % of
 * the signed projection's CPU. A key's id is the hash of the key, so whoever holds the key of an id
 * may keep it for as long as it likes.
 */
public final class NodePublicKey {
  private final PublicKey key;
  private final Ed25519PublicKeyParameters checking;

  private NodePublicKey(PublicKey key, Ed25519PublicKeyParameters checking) {
    this.key = key;
    this.checking = checking;
  }

  /** An Ed25519 X.509 public key (PEM or base64), refused with the reason if it is not one. */
  public static NodePublicKey parse(String pem) {
    PublicKey key = EnrolledKey.parsePublicKey(pem);
    try {
      return new NodePublicKey(key, Ed25519Signatures.verificationKey(key));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("node key: " + e.getMessage(), e);
    }
  }

  /** The key as the JDK holds it. */
  public PublicKey jdkKey() {
    return key;
  }

  /** The key's id ({@link NodeKeyId}). */
  public String id() {
    return NodeKeyId.of(key);
  }

  /** The key's 32-byte Ed25519 encoding. */
  byte[] encoded() {
    return checking.getEncoded();
  }

  /** Whether {@code signature} is this key's over {@code message} ({@link Ed25519Signatures}). */
  boolean verifies(byte[] message, byte[] signature) throws GeneralSecurityException {
    return Ed25519Signatures.verify(checking, message, signature);
  }
}
