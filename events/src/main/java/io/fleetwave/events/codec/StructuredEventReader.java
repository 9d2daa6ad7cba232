package io.fleetwave.events.codec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectReader;
import io.cloudevents.types.Time;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.EventType;
import io.fleetwave.events.EventTypes;
import io.fleetwave.events.payload.FleetEvent;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads a structured-mode CloudEvents JSON record in one pass: the envelope attributes straight
 * from the token stream, the {@code data} object straight into its payload record, with no
 * intermediate tree and no SDK event.
 *
 * <p>It takes only the shape {@link EventCodec#encode} writes (spec version 1.0, string attributes,
 * {@code application/json} data of the current version after {@code type}, nothing else, no
 * attribute twice). For anything else, or any doubt at all, it answers {@code null} and the caller
 * decodes the record along the SDK's path, which stays the reference for what is accepted and for
 * every rejection reason: this class never rejects, it only declines.
 */
final class StructuredEventReader {
  private static final String SPEC_VERSION = "1.0";

  /** One reader per payload class: the deserializer lookup is done once, not per record. */
  private static final ClassValue<ObjectReader> READERS =
      new ClassValue<>() {
        @Override
        protected ObjectReader computeValue(Class<?> payload) {
          return EventCodec.mapper().readerFor(payload);
        }
      };

  /** Current wire types already resolved: resolving takes two regular expression matches. */
  private static final Map<String, EventType> CURRENT_TYPES = new ConcurrentHashMap<>();

  private StructuredEventReader() {}

  /**
   * The record and where its {@code data} object lies in the bytes, or {@code null} when the record
   * is outside the common shape (including every record the reference path rejects).
   */
  static Read read(byte[] bytes) {
    try (JsonParser parser = new IntegralNumbersParser(EventCodec.mapper().createParser(bytes))) {
      // No duplicate detection on the parser (it cost a fifth of the decode): an attribute seen
      // twice is declined by Attributes.once, and a name twice within the data either ends the
      // same as in the tree (a creator property seen again before the record is built: the last
      // value wins in both) or fails the record reader (seen again after: no setter), which
      // declines. The equivalence properties check it.
      return read(parser, bytes);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static Read read(JsonParser parser, byte[] bytes) throws IOException {
    if (parser.nextToken() != JsonToken.START_OBJECT) {
      return null;
    }
    Attributes found = new Attributes();
    for (JsonToken token = parser.nextToken();
        token == JsonToken.FIELD_NAME;
        token = parser.nextToken()) {
      String name = parser.currentName();
      JsonToken value = parser.nextToken();
      if ("data".equals(name)) {
        if (value != JsonToken.START_OBJECT || found.payload == null || found.data != null) {
          return null;
        }
        found.dataStart = parser.currentTokenLocation().getByteOffset();
        found.data = READERS.get(found.payload.payload()).readValue(parser);
        found.dataEnd = parser.currentTokenLocation().getByteOffset() + 1;
      } else if (value != JsonToken.VALUE_STRING || !found.take(name, parser.getText())) {
        return null;
      }
    }
    // The loop ends on the envelope's closing brace; anything after it is for the reference.
    if (parser.currentToken() != JsonToken.END_OBJECT || parser.nextToken() != null) {
      return null;
    }
    return found.data != null && found.spansData(bytes) ? found.complete() : null;
  }

  /** The decoded record and the byte span {@code [dataStart, dataEnd)} of its data object. */
  record Read(Envelope<FleetEvent> envelope, int dataStart, int dataEnd) {}

  /** The attributes seen so far; each may be seen once. */
  private static final class Attributes {
    private String specVersion;
    private String id;
    private String source;
    private String type;
    private EventType payload;
    private String subject;
    private String time;
    private String contentType;
    private String epoch;
    private String seq;
    private FleetEvent data;
    private long dataStart;
    private long dataEnd;

    /** Records one string attribute; false for an unknown name or one seen before. */
    boolean take(String name, String value) {
      switch (name) {
        case "specversion" -> specVersion = once(specVersion, value);
        case "id" -> id = once(id, value);
        case "source" -> source = once(source, value);
        case "type" -> {
          type = once(type, value);
          payload = currentType(value);
        }
        case "subject" -> subject = once(subject, value);
        case "time" -> time = once(time, value);
        case "datacontenttype" -> contentType = once(contentType, value);
        case EventCodec.EPOCH -> epoch = once(epoch, value);
        case EventCodec.SEQ -> seq = once(seq, value);
        default -> {
          return false;
        }
      }
      return true;
    }

    /** Thrown away by {@link #read}: a second value for an attribute leaves the common shape. */
    private static String once(String previous, String value) {
      if (previous != null) {
        throw new IllegalStateException("attribute seen twice");
      }
      return value;
    }

    /** The type when its data can be read as it is (no upcast), otherwise null. */
    private static EventType currentType(String wireType) {
      EventType cached = CURRENT_TYPES.get(wireType);
      if (cached != null) {
        return cached;
      }
      try {
        EventType known = EventTypes.resolve(wireType);
        if (EventTypes.versionOf(wireType) != known.version()) {
          return null;
        }
        // Only current wire types this build knows are kept: the map cannot grow past them.
        CURRENT_TYPES.put(wireType, known);
        return known;
      } catch (EventRejectedException e) {
        return null;
      }
    }

    Read complete() {
      if (!SPEC_VERSION.equals(specVersion)
          || !Envelope.DATA_CONTENT_TYPE.equals(contentType)
          || id == null
          || source == null
          || subject == null
          || subject.isBlank()
          || time == null
          || data == null) {
        return null;
      }
      long epochValue = EventCodec.digitsOrMinusOne(epoch);
      long seqValue = EventCodec.digitsOrMinusOne(seq);
      if (epochValue < 0 || seqValue < 0) {
        return null;
      }
      URI sourceUri;
      try {
        // As the SDK reads it (new URI, not URI.create), so both accept the same sources.
        sourceUri = new URI(source);
      } catch (URISyntaxException e) {
        return null;
      }
      // The codec's own form read directly; any other the SDK's parser reads, as the tree path
      // does.
      Instant at = UtcTimestamps.parseOrNull(time);
      if (at == null) {
        at = Time.parseTime("time", time).toInstant();
      }
      Envelope<FleetEvent> envelope =
          new Envelope<>(id, sourceUri, type, subject, at, epochValue, seqValue, data);
      return new Read(envelope, Math.toIntExact(dataStart), Math.toIntExact(dataEnd));
    }

    /**
     * Whether the span found is the data object's own bytes: a parser over text that is not UTF-8
     * (which Jackson detects and the SDK accepts) has no byte offsets to give.
     */
    boolean spansData(byte[] bytes) {
      return dataStart >= 0
          && dataEnd <= bytes.length
          && bytes[(int) dataStart] == '{'
          && bytes[(int) dataEnd - 1] == '}';
    }
  }
}
