package io.fleetwave.events.security;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.Objects;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/**
 * An Ed25519 key pair that signs, and writes its halves as PEM: what the control plane's command
 * signer and a node's event signer have in common (they differ in what they sign and how they name
 * the key). Thread-safe: each signature uses its own signer.
 */
final class SigningKeyPair {
  private final PrivateKey privateKey;
  private final Ed25519PrivateKeyParameters signingKey;
  private final PublicKey publicKey;

  private SigningKeyPair(PrivateKey privateKey, PublicKey publicKey) {
    this.privateKey = Objects.requireNonNull(privateKey, "privateKey");
    this.signingKey = Ed25519Signatures.signingKey(privateKey);
    this.publicKey = Objects.requireNonNull(publicKey, "publicKey");
  }

  /** A PKCS#8 private key, PEM or bare base64 of the DER, with the public half derived from it. */
  static SigningKeyPair fromPkcs8(String pemOrBase64) {
    PrivateKey key = Ed25519Keys.privateKey(pemOrBase64);
    return new SigningKeyPair(key, Ed25519Keys.publicKeyOf(key));
  }

  static SigningKeyPair generate() {
    try {
      KeyPair pair = KeyPairGenerator.getInstance(Ed25519Keys.ALGORITHM).generateKeyPair();
      return new SigningKeyPair(pair.getPrivate(), pair.getPublic());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK offers no Ed25519 key generator", e);
    }
  }

  /** The Ed25519 form Bouncy Castle signs with, for the keys derived from this one. */
  Ed25519PrivateKeyParameters signingKey() {
    return signingKey;
  }

  byte[] sign(byte[] message) {
    return Ed25519Signatures.sign(signingKey, message);
  }

  PublicKey publicKey() {
    return publicKey;
  }

  /** The private key as PKCS#8 PEM. */
  String privateKeyPem() {
    return Ed25519Keys.pem("PRIVATE KEY", privateKey.getEncoded());
  }

  /** The public key as X.509 PEM. */
  String publicKeyPem() {
    return Ed25519Keys.pem("PUBLIC KEY", publicKey.getEncoded());
  }
}
