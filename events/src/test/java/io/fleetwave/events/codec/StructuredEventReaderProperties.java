package io.fleetwave.events.codec;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.payload.FleetEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * The one-pass decoder ({@link EventCodec#decode}) against the reference SDK-and-tree path ({@link
 * EventCodec#decodeByTree}): for every record, valid or broken in any way, both return the same
 * envelope or refuse it with the same reason.
 */
class StructuredEventReaderProperties {
  private static final ObjectMapper JSON = EventCodec.mapper();

  /** Values a field may be retyped to: wrong JSON types, edge numbers, near-miss attributes. */
  private static final List<String> LITERALS =
      List.of(
          "null",
          "true",
          "0",
          "-1",
          "42",
          "1.5",
          "1e20",
          "-0.0",
          "12345678901234567890",
          "123456789.123456789123456789",
          "\"\"",
          "\" \"",
          "\"x\"",
          "\"7\"",
          "\"-7\"",
          "\"99999999999999999999\"",
          "\"\\u0661\\u0662\"",
          "{}",
          "[]",
          "[1]",
          "{\"hostname\":1}",
          "\"1.0\"",
          "\"0.3\"",
          "\"application/json\"",
          "\"application/json; charset=utf-8\"",
          "\"text/plain\"",
          "\"2026-12-01T00:00:00Z\"",
          "\"2026-12-01T00:00:00.123456789+05:30\"",
          "\"2026-12-01 00:00:00\"",
          "\"not a uri\"",
          "\"fleetwave:agent/x\"",
          "\"io.fleetwave.node.heartbeat.v1\"",
          "\"io.fleetwave.node.heartbeat\"",
          "\"io.fleetwave.node.heartbeat.v2\"",
          "\"io.fleetwave.node.exploded.v1\"",
          "\"io.fleetwave.rollout.paused.v1\"",
          "\"io.fleetwave.rollout.paused.v2\"",
          "{\"bootId\":\"b\",\"uptimeSeconds\":1}",
          "\"AAAA\"");

  /** Names a field may be added under: extensions, attributes the common shape leaves out. */
  private static final List<String> NAMES =
      List.of(
          "data",
          "type",
          "subject",
          "epoch",
          "traceparent",
          "data_base64",
          "dataschema",
          "datacontentencoding",
          "Bad-Name",
          "bootId",
          "uptimeSeconds",
          "gpus");

  @Property(tries = 300)
  void aRecordAsWrittenTakesTheOnePathAndDecodesAsTheReference(
      @ForAll("envelopes") Envelope<NodeEvent> envelope) throws EventRejectedException {
    byte[] bytes = EventCodec.encode(envelope);

    assertThat(StructuredEventReader.read(bytes)).isNotNull();
    assertThat(EventCodec.decode(bytes)).isEqualTo(EventCodec.decodeByTree(bytes));
  }

  @Property(tries = 2000)
  void anEditedRecordDecodesOrIsRefusedAsTheReferenceDoes(
      @ForAll("envelopes") Envelope<NodeEvent> envelope, @ForAll("edits") List<Edit> edits) {
    List<Field> fields = fields(EventCodec.encode(envelope));
    for (Edit edit : edits) {
      fields = edit.apply(fields);
    }
    byte[] bytes = write(fields).getBytes(UTF_8);

    Statistics.label("path").collect(StructuredEventReader.read(bytes) != null ? "one" : "tree");
    assertThat(outcome(bytes, true)).isEqualTo(outcome(bytes, false));
  }

  /**
   * The reader does not look for names given twice within the data (it would cost a fifth of the
   * decode); the record reader fails or keeps the last value, as the tree does. Here on its own.
   */
  @Property(tries = 1000)
  void aNameTwiceWithinTheDataDecodesOrIsRefusedAsTheReferenceDoes(
      @ForAll("envelopes") Envelope<NodeEvent> envelope,
      @ForAll @IntRange(max = 1000) int at,
      @ForAll @IntRange(max = 1000) int other,
      @ForAll boolean sameValue) {
    Edit twice = new Edit(EditKind.DUPLICATE_IN_DATA, at, other, !sameValue);
    byte[] bytes = write(twice.apply(fields(EventCodec.encode(envelope)))).getBytes(UTF_8);

    Statistics.label("path").collect(StructuredEventReader.read(bytes) != null ? "one" : "tree");
    assertThat(outcome(bytes, true)).isEqualTo(outcome(bytes, false));
  }

  @Property(tries = 1000)
  void aDamagedRecordDecodesOrIsRefusedAsTheReferenceDoes(
      @ForAll("envelopes") Envelope<NodeEvent> envelope, @ForAll("damages") List<Damage> damages) {
    byte[] bytes = EventCodec.encode(envelope);
    for (Damage damage : damages) {
      bytes = damage.apply(bytes);
    }

    Statistics.label("path").collect(StructuredEventReader.read(bytes) != null ? "one" : "tree");
    assertThat(outcome(bytes, true)).isEqualTo(outcome(bytes, false));
  }

  @Property(tries = 300)
  void theReceivedDataIsTheRecordsDataObjectByteForByte(
      @ForAll("envelopes") Envelope<NodeEvent> envelope, @ForAll boolean pretty) throws Exception {
    JsonNode tree = JSON.readTree(EventCodec.encode(envelope));
    ObjectWriter writer = pretty ? JSON.writerWithDefaultPrettyPrinter() : JSON.writer();
    byte[] record = writer.writeValueAsBytes(tree);

    ReceivedEvent received = EventCodec.decodeReceived(record);

    assertThat(received.envelope()).isEqualTo(EventCodec.decodeByTree(record));
    String data = received.receivedData().orElseThrow();
    assertThat(JSON.readTree(data)).isEqualTo(JSON.readTree(record).get("data"));
    assertThat(new String(record, UTF_8)).contains(data);
    if (!pretty) {
      assertThat(data).isEqualTo(new String(JSON.writeValueAsBytes(tree.get("data")), UTF_8));
    }
  }

  /** The decoded envelope, or the rejection's reason; anything else thrown fails the property. */
  private static Object outcome(byte[] bytes, boolean onePass) {
    try {
      Envelope<FleetEvent> envelope =
          onePass ? EventCodec.decode(bytes) : EventCodec.decodeByTree(bytes);
      return envelope;
    } catch (EventRejectedException e) {
      return "rejected: " + e.getMessage();
    }
  }

  @Provide
  Arbitrary<Envelope<NodeEvent>> envelopes() {
    return EventArbitraries.envelopes();
  }

  @Provide
  Arbitrary<List<Edit>> edits() {
    Arbitrary<Edit> edit =
        Combinators.combine(
                Arbitraries.of(EditKind.class),
                Arbitraries.integers().between(0, 1000),
                Arbitraries.integers().between(0, 1000),
                Arbitraries.of(true, false))
            .as(Edit::new);
    return edit.list().ofMinSize(1).ofMaxSize(3);
  }

  @Provide
  Arbitrary<List<Damage>> damages() {
    Arbitrary<Damage> damage =
        Combinators.combine(
                Arbitraries.of(DamageKind.class),
                Arbitraries.integers().between(0, 100_000),
                Arbitraries.bytes())
            .as(Damage::new);
    return damage.list().ofMinSize(1).ofMaxSize(2);
  }

  /** One top-level name and the JSON text of its value, in record order; names may repeat. */
  record Field(String name, String json) {}

  enum EditKind {
    DROP,
    MOVE,
    DUPLICATE,
    RETYPE,
    ADD,
    DROP_IN_DATA,
    RETYPE_IN_DATA,
    DUPLICATE_IN_DATA,
    ADD_IN_DATA
  }

  /** A field-level change; {@code inData} picks the level for the plain kinds. */
  record Edit(EditKind kind, int at, int other, boolean inData) {
    List<Field> apply(List<Field> fields) {
      return switch (kind) {
        case DROP_IN_DATA, RETYPE_IN_DATA, DUPLICATE_IN_DATA, ADD_IN_DATA -> inData(fields);
        default -> edit(fields, kind);
      };
    }

    private List<Field> inData(List<Field> fields) {
      List<Field> result = new ArrayList<>(fields);
      for (int i = 0; i < result.size(); i++) {
        Field field = result.get(i);
        if (field.name().equals("data") && field.json().startsWith("{")) {
          EditKind plain = EditKind.valueOf(kind.name().replace("_IN_DATA", ""));
          List<Field> data = edit(fields(field.json().getBytes(UTF_8)), plain);
          result.set(i, new Field("data", write(data)));
          return result;
        }
      }
      return result;
    }

    private List<Field> edit(List<Field> fields, EditKind plain) {
      List<Field> result = new ArrayList<>(fields);
      if (plain == EditKind.ADD) {
        result.add(
            at % (result.size() + 1),
            new Field(NAMES.get(other % NAMES.size()), LITERALS.get(at % LITERALS.size())));
        return result;
      }
      if (result.isEmpty()) {
        return result;
      }
      int i = at % result.size();
      Field field = result.get(i);
      switch (plain) {
        case DROP -> result.remove(i);
        case MOVE -> {
          result.remove(i);
          result.add(other % (result.size() + 1), field);
        }
        case DUPLICATE -> {
          String json = inData ? LITERALS.get(other % LITERALS.size()) : field.json();
          result.add(other % (result.size() + 1), new Field(field.name(), json));
        }
        case RETYPE ->
            result.set(i, new Field(field.name(), LITERALS.get(other % LITERALS.size())));
        default -> throw new IllegalArgumentException("not a plain edit: " + plain);
      }
      return result;
    }
  }

  enum DamageKind {
    TRUNCATE,
    FLIP,
    INSERT,
    APPEND,
    PAD_WITH_SPACES,
    BOM
  }

  /** A byte-level change at a position taken modulo the record's length. */
  record Damage(DamageKind kind, int at, byte value) {
    byte[] apply(byte[] bytes) {
      int i = bytes.length == 0 ? 0 : at % bytes.length;
      return switch (kind) {
        case TRUNCATE -> Arrays.copyOf(bytes, i);
        case FLIP -> {
          byte[] copy = bytes.clone();
          if (copy.length > 0) {
            copy[i] = value;
          }
          yield copy;
        }
        case INSERT -> concat(Arrays.copyOf(bytes, i), new byte[] {value}, tail(bytes, i));
        case APPEND -> concat(bytes, new byte[] {value}, new byte[0]);
        case PAD_WITH_SPACES ->
            concat(Arrays.copyOf(bytes, i), " \n\t".getBytes(UTF_8), tail(bytes, i));
        case BOM -> concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, bytes, new byte[0]);
      };
    }

    private static byte[] tail(byte[] bytes, int from) {
      return Arrays.copyOfRange(bytes, from, bytes.length);
    }

    private static byte[] concat(byte[] a, byte[] b, byte[] c) {
      byte[] all = Arrays.copyOf(a, a.length + b.length + c.length);
      System.arraycopy(b, 0, all, a.length, b.length);
      System.arraycopy(c, 0, all, a.length + b.length, c.length);
      return all;
    }
  }

  /** The top-level fields of a JSON object, in order, each value as compact JSON text. */
  private static List<Field> fields(byte[] object) {
    try {
      List<Field> fields = new ArrayList<>();
      for (Map.Entry<String, JsonNode> entry : JSON.readTree(object).properties()) {
        fields.add(new Field(entry.getKey(), JSON.writeValueAsString(entry.getValue())));
      }
      return fields;
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static String write(List<Field> fields) {
    StringBuilder json = new StringBuilder("{");
    for (Field field : fields) {
      if (json.length() > 1) {
        json.append(',');
      }
      json.append('"').append(field.name()).append("\":").append(field.json());
    }
    return json.append('}').toString();
  }
}
