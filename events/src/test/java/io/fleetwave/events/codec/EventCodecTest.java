package io.fleetwave.events.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeRegistered;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class EventCodecTest {
  private static final NodeRegistered TALOS =
      new NodeRegistered(
          "talos-h200-0",
          HostKind.TALOS,
          "talos",
          "1.11.2",
          "6.12.48-talos",
          true,
          false,
          "/usr/local",
          "/",
          DriverProvider.OS_IMAGE,
          "580.95.05",
          "zone-a",
          Map.of("pool", "training"),
          Map.of("readOnlyRoot", "mountinfo: / ro"));

  @Test
  void encodesAStructuredCloudEvent() throws Exception {
    ObjectNode json = json(envelope(TALOS));

    assertThat(json.get("specversion").asText()).isEqualTo("1.0");
    assertThat(json.get("type").asText()).isEqualTo("io.fleetwave.node.registered.v1");
    assertThat(json.get("subject").asText()).isEqualTo("talos-h200-0");
    assertThat(json.get("datacontenttype").asText()).isEqualTo("application/json");
    assertThat(json.get("epoch").asText()).isEqualTo("1700000000000");
    assertThat(json.get("seq").asText()).isEqualTo("7");
    assertThat(json.at("/data/hostKind").asText()).isEqualTo("talos");
    assertThat(json.at("/data/driverProvider").asText()).isEqualTo("os-image");
  }

  /**
   * Each record the decoder refuses, with the part of the reason that names what is wrong: the
   * envelope, the CloudEvents attributes and extensions, then the data.
   */
  static Stream<Arguments> rejectedRecords() {
    return Stream.of(
        arguments(
            "malformed JSON", "{\"specversion\": ".getBytes(StandardCharsets.UTF_8), "envelope"),
        arguments("an empty record", new byte[0], "empty record value"),
        arguments(
            "an unknown type",
            edit(j -> j.put("type", "io.fleetwave.node.exploded.v1")),
            "unknown event type"),
        arguments(
            "a newer version, naming the version it knows",
            edit(j -> j.put("type", "io.fleetwave.node.registered.v2")),
            "newer than this build understands (up to v1)"),
        arguments(
            "a type without version",
            edit(j -> j.put("type", "io.fleetwave.node.registered")),
            "no version suffix"),
        arguments("a missing subject", edit(j -> j.remove("subject")), "'subject'"),
        arguments(
            "a missing epoch",
            edit(j -> j.remove("epoch")),
            "missing CloudEvents extension 'epoch'"),
        arguments(
            "a non-numeric seq",
            edit(j -> j.put("seq", "seven")),
            "extension 'seq' must be a non-negative integer"),
        arguments(
            "a missing required data field",
            edit(j -> ((ObjectNode) j.get("data")).remove("hostname")),
            "hostname"),
        arguments(
            "a wrong field type, naming the field",
            edit(j -> ((ObjectNode) j.get("data")).put("readOnlyRoot", "yes")),
            "field 'readOnlyRoot'"),
        arguments(
            "an unknown enum value, naming it",
            edit(j -> ((ObjectNode) j.get("data")).put("hostKind", "windows")),
            "unknown host kind 'windows'"),
        arguments(
            "data that is not an object", edit(j -> j.put("data", 42)), "must be a JSON object"),
        arguments(
            "an inventory listing a GPU index twice",
            editInventory(j -> ((ObjectNode) j.at("/data/gpus/1")).put("index", 0)),
            "field 'gpus' lists GPU index 0 more than once"),
        arguments(
            "a GPU listing a MIG placement twice",
            editInventory(
                j -> ((ObjectNode) j.at("/data/gpus/0/instances/1")).put("placementStart", 0)),
            "field 'instances' lists placementStart 0 more than once"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rejectedRecords")
  void rejectsARecordNamingWhatIsWrong(String what, byte[] record, String reasonPart) {
    assertRejected(record, reasonPart);
  }

  /**
   * A GPU whose PCI device id is not 0x + device + vendor is refused when the record is read (it
   * goes to the dead-letter topic), before the read model stores it: one such GPU used to make
   * /fleet/summary answer 500 for everyone.
   */
  @ParameterizedTest
  @ValueSource(strings = {"x", "0", "0x", "0x2330", "0x233010DE0", "2330 10DE", "0xZZZZ10DE"})
  void rejectsAGpuWhosePciDeviceIdIsNotDeviceAndVendor(String id) {
    assertRejected(
        editInventory(j -> ((ObjectNode) j.at("/data/gpus/0")).put("pciDeviceId", id)),
        "'pciDeviceId' must be 0x and eight hex");
  }

  @Test
  void acceptsUnknownExtraFieldsWithinAVersion() throws Exception {
    byte[] bytes = edit(j -> ((ObjectNode) j.get("data")).put("addedLater", 1));

    assertThat(EventCodec.decode(bytes).data()).isEqualTo(TALOS);
  }

  @Test
  void heartbeatRoundTrips() throws Exception {
    Envelope<Heartbeat> beat = envelope(new Heartbeat("boot-1", 30));

    assertThat(EventCodec.decode(EventCodec.encode(beat))).isEqualTo(beat);
  }

  /** Two MIG-enabled H100s with two instances each, at placements 0 and 4. */
  private static GpuInventoryReported inventory() {
    List<GpuInstance> instances =
        List.of(new GpuInstance("3g.40gb", 0, 4), new GpuInstance("3g.40gb", 4, 4));
    return new GpuInventoryReported(
        List.of(h100(0, "0000:10:00.0", instances), h100(1, "0000:11:00.0", instances)));
  }

  private static Gpu h100(int index, String pciBusId, List<GpuInstance> instances) {
    return new Gpu(
        index,
        "GPU-" + index,
        pciBusId,
        "0x233010DE",
        "NVIDIA H100 80GB HBM3",
        81559,
        true,
        MigMode.ENABLED,
        MigMode.ENABLED,
        instances,
        0,
        0,
        GpuHealth.HEALTHY);
  }

  private static <E extends io.fleetwave.events.payload.FleetEvent> Envelope<E> envelope(E data) {
    return Envelope.of(
        URI.create("fleetwave:agent/talos-h200-0"),
        "talos-h200-0",
        Instant.parse("2026-11-29T10:15:30.123Z"),
        1_700_000_000_000L,
        7,
        data);
  }

  private static ObjectNode json(Envelope<?> envelope) throws Exception {
    return (ObjectNode) EventCodec.mapper().readTree(EventCodec.encode(envelope));
  }

  private static byte[] edit(Consumer<ObjectNode> change) {
    return RecordEdits.edited(EventCodec.encode(envelope(TALOS)), change);
  }

  private static byte[] editInventory(Consumer<ObjectNode> change) {
    return RecordEdits.edited(EventCodec.encode(envelope(inventory())), change);
  }

  private static void assertRejected(byte[] bytes, String reasonPart) {
    assertThatThrownBy(() -> EventCodec.decode(bytes))
        .isInstanceOf(EventRejectedException.class)
        .hasMessageContaining(reasonPart);
  }
}
