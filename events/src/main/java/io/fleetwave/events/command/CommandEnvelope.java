package io.fleetwave.events.command;

import io.fleetwave.events.EventTypes;
import java.net.URI;
import java.time.Instant;
import java.util.Objects;
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
    String signature) {

  public CommandEnvelope {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(data, "data");
    if (subject.isBlank()) {
      throw new IllegalArgumentException("subject (node name) must not be blank");
    }
    if (signature != null && signature.isBlank()) {
      throw new IllegalArgumentException("signature must be null or non-blank");
    }
  }

  /** A new unsigned envelope with a random id, typed after its command. */
  public static CommandEnvelope of(URI source, String node, Instant time, NodeCommand data) {
    return new CommandEnvelope(
        UUID.randomUUID().toString(), source, EventTypes.typeOf(data), node, time, data, null);
  }

  public CommandEnvelope withSignature(String base64Signature) {
    return new CommandEnvelope(id, source, type, subject, time, data, base64Signature);
  }

  public boolean signed() {
    return signature != null;
  }
}
