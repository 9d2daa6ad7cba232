package io.fleetwave.controlplane.security;

import io.fleetwave.controlplane.config.CommandsConfig;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.security.AgreementKey;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.security.CommandVerifier;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The control plane's Ed25519 command-signing key, from a file ({@code
 * fleetwave.commands.private-key-file}, env {@code FLEETWAVE_COMMANDS_PRIVATE_KEY_FILE}: a mounted
 * Kubernetes Secret) or the key itself ({@code fleetwave.commands.private-key}, env {@code
 * FLEETWAVE_COMMANDS_PRIVATE_KEY}, e.g. from a Secret through {@code secretKeyRef}); PKCS#8 PEM or
 * base64. Never from the command line, where every user of the host can read it: a {@code
 * -Dfleetwave.commands.private-key=} JVM argument fails the start. Every signature names the key
 * (its {@code kid}). With no key, every call that must sign answers 503 and nothing is sent
 * unsigned (the demo generates a key before it starts).
 */
@ApplicationScoped
public class CommandSigning {
  private static final Logger LOG = Logger.getLogger(CommandSigning.class);
  static final String PROPERTY = "fleetwave.commands.private-key";

  private final Optional<CommandSigner> signer;
  private final Optional<AgreementKey> agreementKey;

  @Inject
  public CommandSigning(CommandsConfig config) {
    this(
        config.privateKeyFile(),
        config.privateKey(),
        ManagementFactory.getRuntimeMXBean().getInputArguments());
  }

  public CommandSigning(Optional<String> privateKey) {
    this(Optional.empty(), privateKey, List.of());
  }

  /**
   * @param jvmArguments the JVM's command-line arguments, checked for the key
   * @throws IllegalArgumentException when the key is on the command line, the file cannot be read,
   *     or the key is malformed (naming which, never quoting the key)
   */
  CommandSigning(Optional<Path> file, Optional<String> privateKey, List<String> jvmArguments) {
    CommandLineSecrets.refuse(
        PROPERTY,
        "mount the key from a Kubernetes Secret and set fleetwave.commands.private-key-file (env"
            + " FLEETWAVE_COMMANDS_PRIVATE_KEY_FILE), or set FLEETWAVE_COMMANDS_PRIVATE_KEY from"
            + " the Secret",
        jvmArguments);
    Optional<String> key =
        file.isPresent() ? Optional.of(read(file.get())) : privateKey.filter(k -> !k.isBlank());
    this.signer = signer(key);
    this.agreementKey = signer.map(CommandSigner::agreementKey);
    signer.ifPresent(s -> LOG.infof("specs and commands are signed with key %s", s.kid()));
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "fleetwave.commands.private-key-file: cannot read " + file + ": " + e, e);
    }
  }

  private static Optional<CommandSigner> signer(Optional<String> privateKey) {
    if (privateKey.isPresent()) {
      // A malformed key fails the start with the key reader's specific message.
      return Optional.of(CommandSigner.fromPkcs8(privateKey.get()));
    }
    LOG.warn(
        "no fleetwave.commands.private-key-file or private-key configured: specs and commands"
            + " cannot be sent (503)");
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

  /** The id every signature names; {@link SigningKeyMissingException} when no key is configured. */
  public String kid() {
    return required().kid();
  }

  /** A verifier for the key, for the in-process demo fleet; empty when no key is configured. */
  public Optional<CommandVerifier> verifier() {
    return signer.map(CommandSigner::verifier);
  }

  /**
   * The key nodes agree their event MACs with ({@link AgreementKey}), derived from the command key;
   * empty when no key is configured (node events are then checked by their signatures alone).
   */
  public Optional<AgreementKey> agreementKey() {
    return agreementKey;
  }

  /** Fails fast (503) before any state changes when nothing could be signed. */
  public void requireConfigured() {
    required();
  }

  private CommandSigner required() {
    return signer.orElseThrow(
        () ->
            new SigningKeyMissingException(
                "command signing key not configured: set fleetwave.commands.private-key-file"
                    + " (env FLEETWAVE_COMMANDS_PRIVATE_KEY_FILE, a mounted Secret) or"
                    + " fleetwave.commands.private-key (env FLEETWAVE_COMMANDS_PRIVATE_KEY) to an"
                    + " Ed25519 PKCS#8 key"));
  }
}
