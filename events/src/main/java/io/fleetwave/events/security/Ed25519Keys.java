package io.fleetwave.events.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import org.bouncycastle.crypto.util.SubjectPublicKeyInfoFactory;

/**
 * Reads Ed25519 keys from configuration: PEM ({@code -----BEGIN PRIVATE KEY-----} PKCS#8, {@code
 * -----BEGIN PUBLIC KEY-----} X.509) or the bare base64 of the same DER bytes, as {@code openssl
 * genpkey -algorithm ed25519} writes them.
 */
final class Ed25519Keys {
  static final String ALGORITHM = "Ed25519";

  private Ed25519Keys() {}

  static PrivateKey privateKey(String pemOrBase64) {
    return key(
        pemOrBase64,
        "PRIVATE KEY",
        "command signing key",
        "PKCS#8 private key",
        (factory, der) -> factory.generatePrivate(new PKCS8EncodedKeySpec(der)));
  }

  static PublicKey publicKey(String pemOrBase64) {
    return key(
        pemOrBase64,
        "PUBLIC KEY",
        "command verification key",
        "X.509 public key",
        (factory, der) -> factory.generatePublic(new X509EncodedKeySpec(der)));
  }

  /** How one kind of key is made of its DER bytes. */
  private interface KeyDecoder<K> {
    K decode(KeyFactory factory, byte[] der) throws GeneralSecurityException;
  }

  /**
   * The key of PEM {@code label} (or its bare base64); {@code what} names it and {@code form} the
   * encoding it must have, in the message that refuses it.
   */
  private static <K> K key(
      String pemOrBase64, String label, String what, String form, KeyDecoder<K> decoder) {
    byte[] der = der(pemOrBase64, label, what);
    try {
      return decoder.decode(KeyFactory.getInstance(ALGORITHM), der);
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          what + " is not an Ed25519 " + form + ": " + e.getMessage(), e);
    }
  }

  /** The public key of an Ed25519 private key (RFC 8032 5.1.5), derived by Bouncy Castle. */
  static PublicKey publicKeyOf(PrivateKey key) {
    try {
      byte[] spki =
          SubjectPublicKeyInfoFactory.createSubjectPublicKeyInfo(
                  Ed25519Signatures.signingKey(key).generatePublicKey())
              .getEncoded();
      return KeyFactory.getInstance(ALGORITHM).generatePublic(new X509EncodedKeySpec(spki));
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot derive the Ed25519 public key: " + e.getMessage(), e);
    }
  }

  /**
   * The key id of a public key: {@code sha256:} and the unpadded base64url SHA-256 of its X.509 DER
   * encoding (the same form node keys are named by), what {@code openssl pkey -pubin -in key.pem
   * -outform DER | openssl dgst -sha256 -binary | basenc --base64url | tr -d =} prints after the
   * prefix. Derived from the key, so control plane and agents agree on it without configuration.
   */
  static String kid(PublicKey key) {
    // One id scheme for every Ed25519 key: the control plane's signing keys and the nodes' keys.
    return NodeKeyId.of(key);
  }

  static String pem(String label, byte[] der) {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n";
  }

  private static byte[] der(String pemOrBase64, String label, String what) {
    if (pemOrBase64 == null || pemOrBase64.isBlank()) {
      throw new IllegalArgumentException(what + " is not configured (empty)");
    }
    String text = pemOrBase64.strip();
    if (text.startsWith("-----BEGIN")) {
      String begin = "-----BEGIN " + label + "-----";
      String end = "-----END " + label + "-----";
      int from = text.indexOf(begin);
      int to = text.indexOf(end);
      if (from != 0 || to < 0) {
        throw new IllegalArgumentException(
            what
                + " must be a PEM '"
                + label
                + "' block, got: "
                + text.lines().findFirst().orElse(""));
      }
      text = text.substring(begin.length(), to);
    }
    try {
      return Base64.getDecoder().decode(text.replaceAll("\\s", ""));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + " is not valid base64: " + e.getMessage(), e);
    }
  }
}
