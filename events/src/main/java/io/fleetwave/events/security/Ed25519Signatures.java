package io.fleetwave.events.security;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SignatureException;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.crypto.util.PublicKeyFactory;

/**
 * Ed25519 signatures (RFC 8032) computed by Bouncy Castle's implementation rather than the JDK's
 * {@code Signature "Ed25519"}. Ed25519 is deterministic, so both give the same bytes for the same
 * key and message and each verifies the other's signatures (a property test checks it): agents and
 * control planes of either kind interoperate. The reason is speed: on the build machine the JDK
 * took about 0.7-1.4 ms per signature and per check, Bouncy Castle about 0.05-0.2 ms, and the
 * control plane checks every node event and signs every spec of a wave (a profile of a 10,000-node
 * rollout had 27 % of the control plane's CPU in the JDK's signing). Keys stay JDK keys everywhere
 * else (PEM, key ids); they are converted here from their standard encodings.
 */
final class Ed25519Signatures {
  static final int SIGNATURE_BYTES = Ed25519PrivateKeyParameters.SIGNATURE_SIZE;

  private Ed25519Signatures() {}

  /**
   * The signing form of a JDK Ed25519 private key (convert once per key: it derives the public).
   */
  static Ed25519PrivateKeyParameters signingKey(PrivateKey key) {
    try {
      return ed25519(
          PrivateKeyFactory.createKey(key.getEncoded()), Ed25519PrivateKeyParameters.class);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("not an Ed25519 private key: " + e.getMessage(), e);
    }
  }

  /** The checking form of a JDK Ed25519 public key. */
  static Ed25519PublicKeyParameters verificationKey(PublicKey key) throws GeneralSecurityException {
    try {
      return ed25519(
          PublicKeyFactory.createKey(key.getEncoded()), Ed25519PublicKeyParameters.class);
    } catch (IOException | RuntimeException e) {
      throw new java.security.InvalidKeyException(
          "not an Ed25519 public key: " + e.getMessage(), e);
    }
  }

  static byte[] sign(Ed25519PrivateKeyParameters key, byte[] message) {
    Ed25519Signer signer = new Ed25519Signer();
    signer.init(true, key);
    signer.update(message, 0, message.length);
    return signer.generateSignature();
  }

  /**
   * Whether {@code signature} is {@code key}'s over {@code message}. A signature of the wrong
   * length is an error rather than a mismatch, with the JDK's words, so refusal reasons stay as
   * they were.
   */
  static boolean verify(PublicKey key, byte[] message, byte[] signature)
      throws GeneralSecurityException {
    return verify(verificationKey(key), message, signature);
  }

  /** {@link #verify(PublicKey, byte[], byte[])} with a key already in its checking form. */
  static boolean verify(Ed25519PublicKeyParameters key, byte[] message, byte[] signature)
      throws GeneralSecurityException {
    if (signature.length != SIGNATURE_BYTES) {
      throw new SignatureException("signature length invalid");
    }
    Ed25519Signer verifier = new Ed25519Signer();
    verifier.init(false, key);
    verifier.update(message, 0, message.length);
    return verifier.verifySignature(signature);
  }

  private static <T extends AsymmetricKeyParameter> T ed25519(
      AsymmetricKeyParameter key, Class<T> type) {
    if (!type.isInstance(key)) {
      throw new IllegalArgumentException("the key is " + key.getClass().getSimpleName());
    }
    return type.cast(key);
  }
}
