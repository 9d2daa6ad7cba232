package io.fleetwave.events;

import io.fleetwave.events.command.NodeCommand;
import java.net.URI;
import java.time.Instant;
import java.util.UUID;

/**
 * A command as it travels: the CloudEvents attributes, the command, and its Ed25519 signature.
 *
 * @param id unique id (CloudEvents {@code id})
 * @param source who issued it, e.g. {@code fleetwave:control-plane}
 * @param type versioned type, e.g. {@code io.fleetwave.command.apply-node-spec.v1}
 * @param subject the node it is for; also the Kafka record key
 * @param time when it was issued
 * @param data the command
 * @param kid the id of the key that signed it ({@code TrustedKeys#kidOf}), or null when unsigned or
 *     signed before key ids existed (an agent rejects both)
 * @param signature base64 Ed25519 signature over {@link CommandCodec#signingInput}, or null when
 *     unsigned (an agent rejects those)
 */
public record CommandEnvelope(
    String id,
    URI source,
    String type,
    String subject,
    Instant time,
    NodeCommand data,
    String kid,
    String signature) {

  public CommandEnvelope {
    RequiredAttributes.check(id, source, type, subject, time, data);
    if (signature != null && signature.isBlank()) {
      throw new IllegalArgumentException("signature must be null or non-blank");
    }
    if (kid != null && kid.isBlank()) {
      throw new IllegalArgumentException("kid must be null or non-blank");
    }
  }

  /** A new unsigned envelope with a random id, typed after its command. */
  public static CommandEnvelope of(URI source, String node, Instant time, NodeCommand data) {
    return new CommandEnvelope(
        UUID.randomUUID().toString(),
        source,
        EventTypes.typeOf(data),
        node,
        time,
        data,
        null,
        null);
  }

  /** This envelope with the signature replaced, naming the same key. */
  public CommandEnvelope withSignature(String base64Signature) {
    return new CommandEnvelope(id, source, type, subject, time, data, kid, base64Signature);
  }

  /** This envelope naming another key, with the signature replaced. */
  public CommandEnvelope withSignature(String kid, String base64Signature) {
    return new CommandEnvelope(id, source, type, subject, time, data, kid, base64Signature);
  }

  public boolean signed() {
    return signature != null;
  }
}
