package io.fleetwave.events.codec;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonFormat;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.EventType;
import io.fleetwave.events.EventTypes;
import io.fleetwave.events.command.CommandStream;
import io.fleetwave.events.command.NodeCommand;
import io.fleetwave.events.payload.FleetEvent;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Encodes commands for {@code fleet.node-desired} and {@code fleet.node-commands} in the same
 * format as node events (CloudEvents structured JSON, the same payload mapper and type registry),
 * plus one extension attribute, {@value #SIGNATURE}, holding the base64 Ed25519 signature. Commands
 * carry no epoch/seq: their order is their {@link NodeCommand#generation()}.
 */
public final class CommandCodec {
  /** CloudEvents extension attribute holding the base64 signature. */
  public static final String SIGNATURE = "signature";

  /**
   * CloudEvents extension attribute naming the signing key ({@code TrustedKeys#kidOf}). Records
   * from before key ids decode without it, and agents refuse them.
   */
  public static final String KID = "kid";

  private static final JsonFormat FORMAT = new JsonFormat();
  private static final byte[] SIGNING_PREFIX =
      "fleetwave-command-signature/v2\n".getBytes(StandardCharsets.UTF_8);

  private CommandCodec() {}

  public static byte[] encode(CommandEnvelope command) {
    CloudEventBuilder builder =
        EventCodec.cloudEvent(
            command.id(),
            command.source(),
            command.type(),
            command.subject(),
            command.time(),
            command.data());
    if (command.kid() != null) {
      builder.withExtension(KID, command.kid());
    }
    if (command.signature() != null) {
      builder.withExtension(SIGNATURE, command.signature());
    }
    return FORMAT.serialize(builder.build());
  }

  /**
   * Decodes one record value of the command topics. Never throws anything but {@link
   * EventRejectedException}; an unsigned command decodes (with a null signature) so the verifier
   * can reject it with its own reason.
   */
  public static CommandEnvelope decode(byte[] bytes) throws EventRejectedException {
    CloudEvent event = EventCodec.parseCloudEvent(bytes);
    EventType type = EventTypes.resolve(event.getType());
    if (!NodeCommand.class.isAssignableFrom(type.payload())) {
      throw new EventRejectedException("event type '" + event.getType() + "' is not a command");
    }
    String subject = event.getSubject();
    if (subject == null || subject.isBlank()) {
      throw new EventRejectedException("missing CloudEvents attribute 'subject' (node name)");
    }
    if (event.getTime() == null) {
      throw new EventRejectedException("missing CloudEvents attribute 'time'");
    }
    Object signature = event.getExtension(SIGNATURE);
    if (signature != null && !(signature instanceof String)) {
      throw new EventRejectedException(
          "extension '" + SIGNATURE + "' must be a string, got " + signature);
    }
    Object kid = event.getExtension(KID);
    if (kid != null && !(kid instanceof String)) {
      throw new EventRejectedException("extension '" + KID + "' must be a string, got " + kid);
    }
    FleetEvent data = EventCodec.decodePayload(event, type);
    try {
      return new CommandEnvelope(
          event.getId(),
          event.getSource(),
          event.getType(),
          subject,
          event.getTime().toInstant(),
          (NodeCommand) data,
          (String) kid,
          (String) signature);
    } catch (IllegalArgumentException e) {
      throw new EventRejectedException("invalid command envelope: " + e.getMessage(), e);
    }
  }

  /**
   * The exact bytes a command's signature covers: a version line, then one line each for the stream
   * it is issued for ({@link CommandStream#purpose()}), the key id, the CloudEvents type, subject
   * (node), id, source and time, the generation, the issue time and the expiry ({@code -} if none),
   * then the command's data as compact JSON in record-component order (maps sorted).
   *
   * <p>Why these: the stream stops a spec being replayed as a one-shot command and the reverse; the
   * key id stops a signature being attributed to another key; type and subject stop a signature for
   * one command or node being moved to another; id, source and time tie it to one issue;
   * generation, issue time and expiry are what replay protection reads, repeated outside the JSON
   * so the covered values are plain to see; the data is exactly what the agent acts on. The data is
   * re-encoded from the record this build decoded, so a field this build does not know is not
   * covered: adding a field to a command needs a new type version. The signature itself and the
   * transport (Kafka key, headers, offset) are not covered. Version 1 (no stream, no key id) is
   * refused by agents, so it is not computed any more.
   */
  public static byte[] signingInput(CommandEnvelope command) {
    NodeCommand data = command.data();
    String header =
        String.join(
                "\n",
                CommandStream.of(data).purpose(),
                command.kid() == null ? "-" : command.kid(),
                command.type(),
                command.subject(),
                command.id(),
                command.source().toString(),
                command.time().toString(),
                Long.toString(data.generation()),
                data.issuedAt().toString(),
                data.expiresAt() == null ? "-" : data.expiresAt().toString())
            + "\n";
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.writeBytes(SIGNING_PREFIX);
      out.writeBytes(header.getBytes(StandardCharsets.UTF_8));
      out.writeBytes(EventCodec.mapper().writeValueAsBytes(data));
      return out.toByteArray();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode " + command.type() + " for signing", e);
    }
  }
}
