package io.fleetwave.events.codec;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.core.format.EventDeserializationException;
import io.cloudevents.jackson.JsonCloudEventData;
import io.cloudevents.jackson.JsonFormat;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.EventType;
import io.fleetwave.events.EventTypes;
import io.fleetwave.events.json.MappingPath;
import io.fleetwave.events.json.PayloadJson;
import io.fleetwave.events.payload.FleetEvent;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * Encodes envelopes as CloudEvents in structured JSON mode (content type {@link #CONTENT_TYPE}) and
 * decodes them back, refusing anything malformed with a specific reason. Thread-safe.
 */
public final class EventCodec {
  public static final String CONTENT_TYPE = JsonFormat.CONTENT_TYPE;
  public static final String EPOCH = "epoch";
  public static final String SEQ = "seq";

  private static final ObjectMapper MAPPER = PayloadJson.mapper();

  private static final JsonFormat FORMAT = new JsonFormat();

  private EventCodec() {}

  /** The mapper used for payloads ({@link PayloadJson}), for callers that need the same rules. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  public static byte[] encode(Envelope<?> envelope) {
    CloudEvent event =
        cloudEvent(
                envelope.id(),
                envelope.source(),
                envelope.type(),
                envelope.subject(),
                envelope.time(),
                envelope.data())
            // CloudEvents integers are 32-bit; epoch and seq are 64-bit, so they travel as strings.
            .withExtension(EPOCH, Long.toString(envelope.epoch()))
            .withExtension(SEQ, Long.toString(envelope.seq()))
            .build();
    return FORMAT.serialize(event);
  }

  /**
   * The attributes and JSON data every record carries, events and commands alike; the caller adds
   * its extensions.
   */
  static CloudEventBuilder cloudEvent(
      String id, URI source, String type, String subject, Instant time, FleetEvent data) {
    return CloudEventBuilder.v1()
        .withId(id)
        .withSource(source)
        .withType(type)
        .withSubject(subject)
        .withTime(time.atOffset(ZoneOffset.UTC))
        .withDataContentType(Envelope.DATA_CONTENT_TYPE)
        .withData(JsonCloudEventData.wrap(MAPPER.valueToTree(data)));
  }

  /** Decodes one record value. Never throws anything but {@link EventRejectedException}. */
  public static Envelope<FleetEvent> decode(byte[] bytes) throws EventRejectedException {
    StructuredEventReader.Read read = bytes == null ? null : StructuredEventReader.read(bytes);
    return read != null ? read.envelope() : decodeByTree(bytes);
  }

  /**
   * Decodes one record value like {@link #decode}, keeping the text of its {@code data} object as
   * received when the record has the common shape (current version, JSON data), so a consumer can
   * store the payload without writing it again.
   */
  public static ReceivedEvent decodeReceived(byte[] bytes) throws EventRejectedException {
    StructuredEventReader.Read read = bytes == null ? null : StructuredEventReader.read(bytes);
    if (read == null) {
      return new ReceivedEvent(decodeByTree(bytes), Optional.empty());
    }
    String data = new String(bytes, read.dataStart(), read.dataEnd() - read.dataStart(), UTF_8);
    return new ReceivedEvent(read.envelope(), Optional.of(data));
  }

  /**
   * The reference decoder: the SDK parses the record into a CloudEvent with a JSON tree as data,
   * then the tree is (upcast and) mapped to the payload. It takes every record the SDK takes and
   * words every rejection; {@link StructuredEventReader} answers only where it would agree.
   */
  static Envelope<FleetEvent> decodeByTree(byte[] bytes) throws EventRejectedException {
    CloudEvent event = parseCloudEvent(bytes);
    EventType type = EventTypes.resolve(event.getType());
    String subject = event.getSubject();
    if (subject == null || subject.isBlank()) {
      throw new EventRejectedException("missing CloudEvents attribute 'subject' (node name)");
    }
    if (event.getTime() == null) {
      throw new EventRejectedException("missing CloudEvents attribute 'time'");
    }
    long epoch = longExtension(event, EPOCH);
    long seq = longExtension(event, SEQ);
    FleetEvent data = decodePayload(event, type);
    Instant time = event.getTime().toInstant();
    try {
      return new Envelope<>(
          event.getId(), event.getSource(), event.getType(), subject, time, epoch, seq, data);
    } catch (IllegalArgumentException e) {
      throw new EventRejectedException("invalid envelope: " + e.getMessage(), e);
    }
  }

  /**
   * Parses a structured CloudEvents JSON record without looking at its type or data; shared with
   * the command codec so both streams have one format and one set of rejection reasons.
   */
  public static CloudEvent parseCloudEvent(byte[] bytes) throws EventRejectedException {
    if (bytes == null || bytes.length == 0) {
      throw new EventRejectedException("empty record value");
    }
    try {
      return FORMAT.deserialize(bytes);
    } catch (EventDeserializationException e) {
      throw new EventRejectedException("not a CloudEvents JSON envelope: " + rootMessage(e), e);
    } catch (RuntimeException e) {
      throw new EventRejectedException("malformed envelope: " + rootMessage(e), e);
    }
  }

  private static long longExtension(CloudEvent event, String name) throws EventRejectedException {
    Object value = event.getExtension(name);
    if (value == null) {
      throw new EventRejectedException("missing CloudEvents extension '" + name + "'");
    }
    String digits = value instanceof Number number ? number.toString() : value.toString();
    if (!isDigits(digits)) {
      throw new EventRejectedException(
          "extension '" + name + "' must be a non-negative integer, got " + describe(value));
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw new EventRejectedException("extension '" + name + "' is out of range: " + digits, e);
    }
  }

  /** At most 19 digits (any script's, as {@link Long#parseLong} reads them), at least one. */
  private static boolean isDigits(String digits) {
    if (digits.isEmpty() || digits.length() > 19) {
      return false;
    }
    for (int i = 0; i < digits.length(); i++) {
      if (!Character.isDigit(digits.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The value of an {@code epoch} or {@code seq} text as {@link #longExtension} reads it, or -1
   * where it would refuse it; one rule for both decoders.
   */
  static long digitsOrMinusOne(String digits) {
    if (digits == null || !isDigits(digits)) {
      return -1;
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Decodes the data of a parsed CloudEvent as the payload of {@code type}, naming bad fields. */
  public static FleetEvent decodePayload(CloudEvent event, EventType type)
      throws EventRejectedException {
    if (event.getData() == null) {
      throw new EventRejectedException("missing data for " + event.getType());
    }
    try {
      JsonNode node =
          event.getData() instanceof JsonCloudEventData json
              ? json.getNode()
              : MAPPER.readTree(event.getData().toBytes());
      if (!node.isObject()) {
        throw new EventRejectedException(
            "data of " + event.getType() + " must be a JSON object, got " + node.getNodeType());
      }
      int version = EventTypes.versionOf(event.getType());
      if (version < type.version()) {
        node = Upcasters.upcast(type, version, (ObjectNode) node);
      }
      return MAPPER.treeToValue(node, type.payload());
    } catch (JsonMappingException e) {
      throw new EventRejectedException(
          "invalid data for " + event.getType() + ": " + describe(e), e);
    } catch (IOException e) {
      throw new EventRejectedException(
          "malformed data for " + event.getType() + ": " + rootMessage(e), e);
    } catch (RuntimeException e) {
      throw new EventRejectedException(
          "invalid data for " + event.getType() + ": " + rootMessage(e), e);
    }
  }

  /** "field 'gpus[0].memoryMiB': reason", from Jackson's path and the innermost cause. */
  private static String describe(JsonMappingException e) {
    String path = MappingPath.of(e);
    String reason = rootMessage(e);
    return path.isEmpty() ? reason : "field '" + path + "': " + reason;
  }

  @SuppressWarnings("ReferenceEquality") // a cause chain that loops ends at the same object
  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message =
        root instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : root.getMessage();
    if (message == null) {
      return root.getClass().getSimpleName();
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  private static String describe(Object value) {
    return value.getClass().getSimpleName() + " '" + value + "'";
  }
}
