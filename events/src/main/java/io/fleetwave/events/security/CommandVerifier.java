package io.fleetwave.events.security;

import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.command.CommandCodec;
import io.fleetwave.events.command.CommandEnvelope;
import io.fleetwave.events.command.NodeCommand;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.time.Instant;
import java.util.Base64;
import java.util.Objects;

/**
 * Decides whether an agent may act on a command: signed by the control plane's key, for this node,
 * not expired, and newer than what the agent already applied. Pure apart from the signature check;
 * thread-safe.
 *
 * <p>Checks run in this order and the first failure is the verdict: unsigned, forged (nothing of an
 * unauthenticated command is trusted, so the signature comes before every field check), wrong node,
 * expired, replayed.
 */
public final class CommandVerifier {
  private final PublicKey publicKey;

  private CommandVerifier(PublicKey publicKey) {
    this.publicKey = Objects.requireNonNull(publicKey, "publicKey");
  }

  /** From configuration: an X.509 (SubjectPublicKeyInfo) public key, PEM or bare base64. */
  public static CommandVerifier fromX509(String pemOrBase64) {
    return new CommandVerifier(Ed25519Keys.publicKey(pemOrBase64));
  }

  /**
   * @param command the decoded command
   * @param node this agent's node name
   * @param lastGeneration the generation this agent last applied on this stream (spec generation
   *     for {@link ApplyNodeSpec}, the last accepted one-shot command otherwise); 0 if none
   * @param now the agent's clock
   */
  public Verdict verify(CommandEnvelope command, String node, long lastGeneration, Instant now) {
    if (!command.signed()) {
      return rejected(
          command, Rejection.UNSIGNED, "command " + command.id() + " carries no signature");
    }
    String forged = signatureProblem(command);
    if (forged != null) {
      return rejected(command, Rejection.FORGED, forged);
    }
    NodeCommand data = command.data();
    if (!command.subject().equals(node)) {
      return rejected(
          command,
          Rejection.WRONG_NODE,
          "command is addressed to node '" + command.subject() + "', this is '" + node + "'");
    }
    if (data instanceof ApplyNodeSpec apply && !apply.spec().node().equals(node)) {
      return rejected(
          command,
          Rejection.WRONG_NODE,
          "spec is for node '" + apply.spec().node() + "', this is '" + node + "'");
    }
    if (data.expiresAt() != null && !now.isBefore(data.expiresAt())) {
      return rejected(
          command,
          Rejection.EXPIRED,
          "command expired at " + data.expiresAt() + " (agent clock " + now + ")");
    }
    if (data.generation() <= lastGeneration) {
      return rejected(
          command,
          Rejection.REPLAYED,
          "generation "
              + data.generation()
              + " is not newer than the applied generation "
              + lastGeneration);
    }
    return new Verdict.Accepted(command);
  }

  /** Null when the signature verifies, otherwise why not. */
  private String signatureProblem(CommandEnvelope command) {
    byte[] signatureBytes;
    try {
      signatureBytes = Base64.getDecoder().decode(command.signature());
    } catch (IllegalArgumentException e) {
      return "signature is not valid base64: " + e.getMessage();
    }
    // Base64 leaves unused bits in its last character: without this check several spellings of one
    // signature verify, so an altered record would pass as a different yet valid command.
    if (!Base64.getEncoder().encodeToString(signatureBytes).equals(command.signature())) {
      return "signature is not canonical base64 (padding bits or characters altered)";
    }
    try {
      Signature signature = Signature.getInstance(Ed25519Keys.ALGORITHM);
      signature.initVerify(publicKey);
      signature.update(CommandCodec.signingInput(command));
      return signature.verify(signatureBytes)
          ? null
          : "signature does not verify against the control plane's key (forged or altered)";
    } catch (GeneralSecurityException e) {
      return "signature cannot be checked: " + e.getMessage();
    }
  }

  private static Verdict rejected(CommandEnvelope command, Rejection rejection, String reason) {
    return new Verdict.Rejected(command, rejection, reason);
  }
}
