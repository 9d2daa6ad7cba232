package io.fleetwave.events.codec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.EventType;
import io.fleetwave.events.EventTypes;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The event type a structured CloudEvents record names, read from its top-level attributes without
 * decoding it: a consumer that wants a few types of a busy stream skips the others for the price of
 * a tokenizer pass, with no payload, envelope or timestamp built.
 *
 * <p>It only tells what the record claims to be; it validates nothing else. It answers empty where
 * a decode could read the type differently (no {@code type} attribute, a non-string one, one seen
 * twice, not a JSON object, an unknown or unreadable wire type), so a caller that skips only the
 * records it is given a type for, and decodes the rest, takes exactly the records it took before.
 */
public final class RecordTypePeek {
  /** Resolved wire types; only resolvable ones are kept, so the map is bounded by the registry. */
  private static final Map<String, EventType> RESOLVED = new ConcurrentHashMap<>();

  private RecordTypePeek() {}

  /** The type {@code bytes} names, or empty where only a decode can tell. */
  public static Optional<EventType> of(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      return Optional.empty();
    }
    String wireType;
    try (JsonParser parser = EventCodec.mapper().createParser(bytes)) {
      wireType = typeAttribute(parser);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
    return wireType == null ? Optional.empty() : resolve(wireType);
  }

  /** The one string {@code type} among the top-level attributes, or null. */
  private static String typeAttribute(JsonParser parser) throws IOException {
    if (parser.nextToken() != JsonToken.START_OBJECT) {
      return null;
    }
    String type = null;
    boolean seen = false;
    for (JsonToken token = parser.nextToken();
        token == JsonToken.FIELD_NAME;
        token = parser.nextToken()) {
      boolean isType = "type".equals(parser.currentName());
      JsonToken value = parser.nextToken();
      if (isType) {
        if (seen || value != JsonToken.VALUE_STRING) {
          return null;
        }
        seen = true;
        type = parser.getText();
      } else {
        parser.skipChildren();
      }
    }
    return parser.currentToken() == JsonToken.END_OBJECT ? type : null;
  }

  private static Optional<EventType> resolve(String wireType) {
    EventType known = RESOLVED.get(wireType);
    if (known != null) {
      return Optional.of(known);
    }
    try {
      known = EventTypes.resolve(wireType);
    } catch (EventRejectedException e) {
      return Optional.empty();
    }
    RESOLVED.put(wireType, known);
    return Optional.of(known);
  }
}
