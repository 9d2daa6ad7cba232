package io.fleetwave.events.security;

import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.codec.CommandCodec;
import java.util.Base64;

/**
 * Signs commands with the control plane's Ed25519 private key ({@link Ed25519Signatures}).
 * Thread-safe: each call uses its own signer.
 */
public final class CommandSigner {
  private final SigningKeyPair keys;
  private final String kid;

  private CommandSigner(SigningKeyPair keys) {
    this.keys = keys;
    this.kid = Ed25519Keys.kid(keys.publicKey());
  }

  /**
   * From configuration: a PKCS#8 private key, PEM or bare base64 of the DER. The public half is
   * derived from it, so {@link #publicKeyPem()} can hand it to operators.
   */
  public static CommandSigner fromPkcs8(String pemOrBase64) {
    return new CommandSigner(SigningKeyPair.fromPkcs8(pemOrBase64));
  }

  /**
   * A fresh key pair, for the demo and tests; {@link #publicKeyPem()} gives agents the other half.
   */
  public static CommandSigner generate() {
    return new CommandSigner(SigningKeyPair.generate());
  }

  /**
   * The command with this key's id and its signature set (replacing any earlier ones), for the
   * stream its kind belongs on ({@link io.fleetwave.events.command.CommandStream#of}).
   */
  public CommandEnvelope sign(CommandEnvelope command) {
    CommandEnvelope named = command.withSignature(kid, null);
    byte[] signature = keys.sign(CommandCodec.signingInput(named));
    return named.withSignature(kid, Base64.getEncoder().encodeToString(signature));
  }

  /** The id every signature of this key names ({@link TrustedKeys#kidOf}). */
  public String kid() {
    return kid;
  }

  /**
   * The control plane's agreement key for node-event MACs, derived from this key: every replica
   * holding the command key holds it too, and rotating the command key rotates it.
   */
  public AgreementKey agreementKey() {
    return AgreementKey.ofControlPlaneKey(keys.signingKey());
  }

  /** The private key as PKCS#8 PEM, to put in configuration. */
  public String privateKeyPem() {
    return keys.privateKeyPem();
  }

  /** The public key as X.509 PEM, for the agents' configuration. */
  public String publicKeyPem() {
    return keys.publicKeyPem();
  }

  /** A verifier for this signer's key. */
  public CommandVerifier verifier() {
    return CommandVerifier.fromX509(publicKeyPem());
  }
}
