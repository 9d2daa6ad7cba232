package io.fleetwave.events.security;

import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.codec.CommandCodec;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.Base64;
import java.util.Objects;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/**
 * Signs commands with the control plane's Ed25519 private key ({@link Ed25519Signatures}).
 * Thread-safe: each call uses its own signer.
 */
public final class CommandSigner {
  private final PrivateKey privateKey;
  private final Ed25519PrivateKeyParameters signingKey;
  private final PublicKey publicKey;
  private final String kid;

  private CommandSigner(PrivateKey privateKey, PublicKey publicKey) {
    this.privateKey = Objects.requireNonNull(privateKey, "privateKey");
    this.signingKey = Ed25519Signatures.signingKey(privateKey);
    this.publicKey = Objects.requireNonNull(publicKey, "publicKey");
    this.kid = Ed25519Keys.kid(publicKey);
  }

  /**
   * From configuration: a PKCS#8 private key, PEM or bare base64 of the DER. The public half is
   * derived from it, so {@link #publicKeyPem()} can hand it to operators.
   */
  public static CommandSigner fromPkcs8(String pemOrBase64) {
    PrivateKey key = Ed25519Keys.privateKey(pemOrBase64);
    return new CommandSigner(key, Ed25519Keys.publicKeyOf(key));
  }

  /**
   * A fresh key pair, for the demo and tests; {@link #publicKeyPem()} gives agents the other half.
   */
  public static CommandSigner generate() {
    try {
      KeyPair pair = KeyPairGenerator.getInstance(Ed25519Keys.ALGORITHM).generateKeyPair();
      return new CommandSigner(pair.getPrivate(), pair.getPublic());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK offers no Ed25519 key generator", e);
    }
  }

  /**
   * The command with this key's id and its signature set (replacing any earlier ones), for the
   * stream its kind belongs on ({@link io.fleetwave.events.command.CommandStream#of}).
   */
  public CommandEnvelope sign(CommandEnvelope command) {
    CommandEnvelope named = command.withSignature(kid, null);
    byte[] signature = Ed25519Signatures.sign(signingKey, CommandCodec.signingInput(named));
    return named.withSignature(kid, Base64.getEncoder().encodeToString(signature));
  }

  /** The id every signature of this key names ({@link TrustedKeys#kidOf}). */
  public String kid() {
    return kid;
  }

  /** The private key as PKCS#8 PEM, to put in configuration. */
  public String privateKeyPem() {
    return Ed25519Keys.pem("PRIVATE KEY", privateKey.getEncoded());
  }

  /** The public key as X.509 PEM, for the agents' configuration. */
  public String publicKeyPem() {
    return Ed25519Keys.pem("PUBLIC KEY", publicKey.getEncoded());
  }

  /** A verifier for this signer's key. */
  public CommandVerifier verifier() {
    return CommandVerifier.fromX509(publicKeyPem());
  }
}
