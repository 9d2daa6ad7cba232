package io.fleetwave.events.security;

import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.codec.CommandCodec;
import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.command.CommandStream;
import io.fleetwave.events.command.NodeCommand;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Decides whether an agent may act on a command: signed by a key the agent trusts, for the stream
 * it arrived on and for this node, issued no later than the agent's clock allows, not expired, and
 * newer than what the agent already applied. Pure apart from the signature check; thread-safe.
 *
 * <p>Checks run in this order and the first failure is the verdict: unsigned, no key id, unknown
 * key, forged (nothing of an unauthenticated command is trusted, so the signature comes before
 * every field check; a signature is accepted only in its one canonical base64 spelling), wrong
 * stream, wrong node, not yet valid, expired, replayed.
 *
 * <p>Clock skew: the agent's and the control plane's clocks differ, so a command issued up to the
 * tolerance after the agent's clock is accepted, and one expires that long after its {@code
 * expiresAt}. Default {@link #DEFAULT_CLOCK_SKEW}.
 */
public final class CommandVerifier {
  /** The clock-skew tolerance unless configured: what NTP-synchronised hosts stay well within. */
  public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofSeconds(60);

  private final Supplier<TrustedKeys> keys;
  private final Duration clockSkew;

  private CommandVerifier(Supplier<TrustedKeys> keys, Duration clockSkew) {
    this.keys = Objects.requireNonNull(keys, "keys");
    this.clockSkew = Objects.requireNonNull(clockSkew, "clockSkew");
    if (clockSkew.isNegative()) {
      throw new IllegalArgumentException("clock skew must not be negative, got " + clockSkew);
    }
  }

  /** From configuration: one X.509 (SubjectPublicKeyInfo) public key, PEM or bare base64. */
  public static CommandVerifier fromX509(String pemOrBase64) {
    return trusting(TrustedKeys.of(List.of(pemOrBase64)));
  }

  /** Trusts exactly these keys. */
  public static CommandVerifier trusting(TrustedKeys keys) {
    Objects.requireNonNull(keys, "keys");
    return new CommandVerifier(() -> keys, DEFAULT_CLOCK_SKEW);
  }

  /**
   * Trusts the keys the source gives at each verification: a key directory that operators change
   * while agents run (add the new key, later retire the old one).
   */
  public static CommandVerifier trusting(Supplier<TrustedKeys> keys) {
    return new CommandVerifier(keys, DEFAULT_CLOCK_SKEW);
  }

  /** This verifier with another clock-skew tolerance. */
  public CommandVerifier withClockSkew(Duration clockSkew) {
    return new CommandVerifier(keys, clockSkew);
  }

  public Duration clockSkew() {
    return clockSkew;
  }

  /** The keys trusted now. */
  public TrustedKeys trustedKeys() {
    return keys.get();
  }

  /**
   * As {@link #verify(CommandEnvelope, CommandStream, String, long, Instant)} for a command read
   * from the stream its kind belongs on.
   */
  public Verdict verify(CommandEnvelope command, String node, long lastGeneration, Instant now) {
    return verify(command, CommandStream.of(command.data()), node, lastGeneration, now);
  }

  /**
   * @param command the decoded command
   * @param stream the stream it was read from
   * @param node this agent's node name
   * @param lastGeneration the generation this agent last applied on this stream (spec generation
   *     for {@link ApplyNodeSpec}, the last accepted one-shot command otherwise); 0 if none
   * @param now the agent's clock
   */
  public Verdict verify(
      CommandEnvelope command,
      CommandStream stream,
      String node,
      long lastGeneration,
      Instant now) {
    if (!command.signed()) {
      return rejected(
          command, Rejection.UNSIGNED, "command " + command.id() + " carries no signature");
    }
    if (command.kid() == null) {
      return rejected(
          command,
          Rejection.NO_KEY_ID,
          "command "
              + command.id()
              + " names no signing key (kid): records signed before key ids are refused;"
              + " the control plane must publish it again");
    }
    TrustedKeys trusted = keys.get();
    Optional<PublicKey> key = trusted.key(command.kid());
    if (key.isEmpty()) {
      return rejected(
          command,
          Rejection.UNKNOWN_KEY,
          "signed with key "
              + command.kid()
              + ", which this agent does not trust (retired or never configured); trusted: "
              + trusted.kids());
    }
    String forged = signatureProblem(command, key.get());
    if (forged != null) {
      return rejected(command, Rejection.FORGED, forged);
    }
    NodeCommand data = command.data();
    CommandStream signedFor = CommandStream.of(data);
    if (signedFor != stream) {
      return rejected(
          command,
          Rejection.WRONG_STREAM,
          command.type()
              + " is signed as a "
              + signedFor.purpose()
              + " and arrived on the "
              + stream.purpose()
              + " stream");
    }
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
    if (data.issuedAt().isAfter(now.plus(clockSkew))) {
      return rejected(
          command,
          Rejection.NOT_YET_VALID,
          "issued at "
              + data.issuedAt()
              + ", later than the agent clock "
              + now
              + " plus the clock-skew tolerance "
              + clockSkew);
    }
    if (data.expiresAt() != null && !now.isBefore(data.expiresAt().plus(clockSkew))) {
      return rejected(
          command,
          Rejection.EXPIRED,
          "command expired at "
              + data.expiresAt()
              + " (agent clock "
              + now
              + ", clock-skew tolerance "
              + clockSkew
              + ")");
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
  private static String signatureProblem(CommandEnvelope command, PublicKey key) {
    byte[] signatureBytes;
    try {
      signatureBytes = Base64.getDecoder().decode(command.signature());
    } catch (IllegalArgumentException e) {
      return "signature is not valid base64: " + e.getMessage();
    }
    // Strict decoding: base64 leaves unused bits in its last character, and the JDK's decoder
    // ignores them; without this check several spellings of one signature verify, so an altered
    // record would pass as a different yet valid command.
    if (!Base64.getEncoder().encodeToString(signatureBytes).equals(command.signature())) {
      return "signature is not canonical base64 (padding bits or characters altered)";
    }
    try {
      return Ed25519Signatures.verify(key, CommandCodec.signingInput(command), signatureBytes)
          ? null
          : "signature does not verify against the control plane's key "
              + command.kid()
              + " (forged or altered)";
    } catch (GeneralSecurityException e) {
      return "signature cannot be checked: " + e.getMessage();
    }
  }

  private static Verdict rejected(CommandEnvelope command, Rejection rejection, String reason) {
    return new Verdict.Rejected(command, rejection, reason);
  }
}
