package io.fleetwave.controlplane.security;

import io.fleetwave.controlplane.config.CommandsConfig;
import io.fleetwave.events.command.CommandEnvelope;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.security.CommandVerifier;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The control plane's Ed25519 command-signing key: {@code fleetwave.commands.private-key} (PKCS#8
 * PEM or base64, env {@code FLEETWAVE_COMMANDS_PRIVATE_KEY}). With no key, every call that must
 * sign answers 503 and nothing is sent unsigned (the demo generates a key before it starts).
 */
@ApplicationScoped
public class CommandSigning {
  private static final Logger LOG = Logger.getLogger(CommandSigning.class);

  private final Optional<CommandSigner> signer;

  @Inject
  public CommandSigning(CommandsConfig config) {
    this(config.privateKey());
  }

  public CommandSigning(Optional<String> privateKey) {
    this.signer = signer(privateKey.filter(k -> !k.isBlank()));
  }

  private static Optional<CommandSigner> signer(Optional<String> privateKey) {
    if (privateKey.isPresent()) {
      // A malformed key fails the start with the key reader's specific message.
      return Optional.of(CommandSigner.fromPkcs8(privateKey.get()));
    }
    LOG.warn(
        "no fleetwave.commands.private-key configured: specs and commands cannot be sent (503)");
    return Optional.empty();
  }

  public boolean configured() {
    return signer.isPresent();
  }

  /** The command signed; {@link SigningKeyMissingException} when no key is configured. */
  public CommandEnvelope sign(CommandEnvelope command) {
    return required().sign(command);
  }

  /**
   * The public key PEM agents verify with; {@link SigningKeyMissingException} when no key is
   * configured.
   */
  public String publicKeyPem() {
    return required().publicKeyPem();
  }

  /** A verifier for the key, for the in-process demo fleet; empty when no key is configured. */
  public Optional<CommandVerifier> verifier() {
    return signer.map(CommandSigner::verifier);
  }

  /** Fails fast (503) before any state changes when nothing could be signed. */
  public void requireConfigured() {
    required();
  }

  private CommandSigner required() {
    return signer.orElseThrow(
        () ->
            new SigningKeyMissingException(
                "command signing key not configured: set fleetwave.commands.private-key"
                    + " (env FLEETWAVE_COMMANDS_PRIVATE_KEY) to an Ed25519 PKCS#8 key"));
  }
}
