package io.fleetwave.events.codec;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.EventType;
import io.fleetwave.events.EventTypes;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.payload.FleetEvent;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * {@link RecordTypePeek} against the decoder: a record as written is always given its type, and a
 * record given a type never decodes as another one, however its attributes are edited or its bytes
 * damaged. That is what lets a consumer skip a record by its peeked type and take exactly what a
 * decode of every record would have taken.
 */
class RecordTypePeekProperties {
  private static final List<String> TYPE_VALUES =
      List.of(
          "\"io.fleetwave.node.heartbeat.v1\"",
          "\"io.fleetwave.node.spec-applied.v1\"",
          "\"io.fleetwave.node.spec-applied\"",
          "\"io.fleetwave.node.spec-applied.v9\"",
          "\"io.fleetwave.node.exploded.v1\"",
          "\"\"",
          "null",
          "7",
          "{\"type\":\"io.fleetwave.node.spec-applied.v1\"}",
          "[\"io.fleetwave.node.heartbeat.v1\"]");

  @Property(tries = 300)
  void aRecordAsWrittenIsGivenTheTypeItDecodesAs(@ForAll("envelopes") Envelope<NodeEvent> envelope)
      throws EventRejectedException {
    byte[] bytes = EventCodec.encode(envelope);

    assertThat(RecordTypePeek.of(bytes))
        .contains(EventTypes.resolve(EventCodec.decode(bytes).type()));
  }

  @Property(tries = 2000)
  void anEditedRecordGivenATypeDecodesAsThatTypeOrNotAtAll(
      @ForAll("envelopes") Envelope<NodeEvent> envelope, @ForAll("edits") List<TypeEdit> edits) {
    List<Map.Entry<String, String>> fields = fields(EventCodec.encode(envelope));
    for (TypeEdit edit : edits) {
      fields = edit.apply(fields);
    }
    byte[] bytes = write(fields).getBytes(UTF_8);

    assertPeekAgreesWithDecode(bytes);
  }

  @Property(tries = 1000)
  void aDamagedRecordGivenATypeDecodesAsThatTypeOrNotAtAll(
      @ForAll("envelopes") Envelope<NodeEvent> envelope,
      @ForAll("damages") List<StructuredEventReaderProperties.Damage> damages) {
    byte[] bytes = EventCodec.encode(envelope);
    for (StructuredEventReaderProperties.Damage damage : damages) {
      bytes = damage.apply(bytes);
    }

    assertPeekAgreesWithDecode(bytes);
  }

  private static void assertPeekAgreesWithDecode(byte[] bytes) {
    Optional<EventType> peeked = RecordTypePeek.of(bytes);
    Envelope<FleetEvent> decoded;
    try {
      decoded = EventCodec.decode(bytes);
    } catch (EventRejectedException e) {
      Statistics.label("outcome").collect(peeked.isPresent() ? "typed, refused" : "refused");
      return;
    }
    Statistics.label("outcome").collect(peeked.isPresent() ? "typed, decoded" : "decoded");
    peeked.ifPresent(type -> assertThat(type.payload()).isEqualTo(decoded.data().getClass()));
  }

  @Provide
  Arbitrary<Envelope<NodeEvent>> envelopes() {
    Arbitrary<NodeEvent> results =
        Arbitraries.oneOf(
            Arbitraries.longs().between(1, 1_000).map(g -> (NodeEvent) new SpecApplied(g)),
            Arbitraries.longs()
                .between(0, 1_000)
                .map(g -> (NodeEvent) new SpecRejected(g, "cmd", "invalid", "no")));
    return Arbitraries.oneOf(
        EventArbitraries.envelopes(),
        Combinators.combine(EventArbitraries.names(), results)
            .as(
                (node, data) ->
                    Envelope.of(
                        URI.create("fleetwave:agent/" + node),
                        node,
                        java.time.Instant.parse("2026-12-01T00:00:00Z"),
                        1,
                        1,
                        data)));
  }

  @Provide
  Arbitrary<List<TypeEdit>> edits() {
    return Combinators.combine(
            Arbitraries.of(TypeEditKind.class),
            Arbitraries.integers().between(0, 1000),
            Arbitraries.integers().between(0, 1000))
        .as(TypeEdit::new)
        .list()
        .ofMinSize(1)
        .ofMaxSize(3);
  }

  @Provide
  Arbitrary<List<StructuredEventReaderProperties.Damage>> damages() {
    return Combinators.combine(
            Arbitraries.of(StructuredEventReaderProperties.DamageKind.class),
            Arbitraries.integers().between(0, 100_000),
            Arbitraries.bytes())
        .as(StructuredEventReaderProperties.Damage::new)
        .list()
        .ofMinSize(1)
        .ofMaxSize(2);
  }

  enum TypeEditKind {
    DROP_TYPE,
    RETYPE,
    SECOND_TYPE,
    MOVE_TYPE,
    TYPE_IN_DATA
  }

  /** A change to where and what the record's {@code type} is. */
  record TypeEdit(TypeEditKind kind, int at, int value) {
    List<Map.Entry<String, String>> apply(List<Map.Entry<String, String>> fields) {
      List<Map.Entry<String, String>> result = new ArrayList<>(fields);
      String literal = TYPE_VALUES.get(value % TYPE_VALUES.size());
      int type = indexOf(result, "type");
      switch (kind) {
        case DROP_TYPE -> {
          if (type >= 0) {
            result.remove(type);
          }
        }
        case RETYPE -> {
          if (type >= 0) {
            result.set(type, Map.entry("type", literal));
          }
        }
        case SECOND_TYPE -> result.add(at % (result.size() + 1), Map.entry("type", literal));
        case MOVE_TYPE -> {
          if (type >= 0) {
            Map.Entry<String, String> moved = result.remove(type);
            result.add(at % (result.size() + 1), moved);
          }
        }
        case TYPE_IN_DATA -> {
          int data = indexOf(result, "data");
          if (data >= 0 && result.get(data).getValue().startsWith("{")) {
            String json = result.get(data).getValue();
            String inner = json.length() > 2 ? "," + json.substring(1) : "}";
            result.set(data, Map.entry("data", "{\"type\":" + literal + inner));
          }
        }
      }
      return result;
    }

    private static int indexOf(List<Map.Entry<String, String>> fields, String name) {
      for (int i = 0; i < fields.size(); i++) {
        if (fields.get(i).getKey().equals(name)) {
          return i;
        }
      }
      return -1;
    }
  }

  private static List<Map.Entry<String, String>> fields(byte[] object) {
    try {
      List<Map.Entry<String, String>> fields = new ArrayList<>();
      for (Map.Entry<String, JsonNode> entry : EventCodec.mapper().readTree(object).properties()) {
        fields.add(
            Map.entry(entry.getKey(), EventCodec.mapper().writeValueAsString(entry.getValue())));
      }
      return fields;
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static String write(List<Map.Entry<String, String>> fields) {
    StringBuilder json = new StringBuilder("{");
    for (Map.Entry<String, String> field : fields) {
      if (json.length() > 1) {
        json.append(',');
      }
      json.append('"').append(field.getKey()).append("\":").append(field.getValue());
    }
    return json.append('}').toString();
  }
}
