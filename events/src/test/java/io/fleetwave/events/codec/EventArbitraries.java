package io.fleetwave.events.codec;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.AgentStopping;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import java.net.URI;
import java.time.Instant;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Random but valid events, including awkward strings (unicode, quotes, empty label values). */
public final class EventArbitraries {
  private EventArbitraries() {}

  static Arbitrary<Envelope<NodeEvent>> envelopes() {
    return Combinators.combine(
            names(),
            Arbitraries.longs().between(0, 4_000_000_000_000L),
            Arbitraries.longs().between(0, Long.MAX_VALUE / 2),
            instants(),
            events())
        .as(
            (node, epoch, seq, time, data) ->
                Envelope.of(URI.create("fleetwave:agent/" + node), node, time, epoch, seq, data));
  }

  static Arbitrary<NodeEvent> events() {
    return Arbitraries.oneOf(
        registrations().map(NodeEvent.class::cast),
        inventories().map(NodeEvent.class::cast),
        Combinators.combine(text(), Arbitraries.longs().greaterOrEqual(0))
            .as((boot, up) -> (NodeEvent) new Heartbeat("boot-" + boot, up)),
        text().map(reason -> (NodeEvent) new AgentStopping("stop " + reason)));
  }

  static Arbitrary<NodeRegistered> registrations() {
    Arbitrary<String> text = text();
    return Combinators.combine(
            names(),
            Arbitraries.of(HostKind.class),
            text,
            Arbitraries.of(DriverProvider.class),
            Arbitraries.of(true, false),
            Arbitraries.maps(labelKeys(), text).ofMaxSize(4),
            Arbitraries.maps(labelKeys(), text).ofMaxSize(3),
            text.injectNull(0.3))
        .as(
            (host, kind, os, provider, flag, labels, reasons, driver) ->
                new NodeRegistered(
                    host,
                    kind,
                    "os" + os,
                    os,
                    "6.1." + os.length(),
                    flag,
                    !flag,
                    "/run/nvidia/driver",
                    "/",
                    provider,
                    driver,
                    "zone-" + os,
                    labels,
                    reasons));
  }

  static Arbitrary<GpuInventoryReported> inventories() {
    return gpus().list().ofMaxSize(8).uniqueElements(Gpu::index).map(GpuInventoryReported::new);
  }

  static Arbitrary<Gpu> gpus() {
    Arbitrary<GpuInstance> instance =
        Combinators.combine(
                Arbitraries.of("1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb"),
                Arbitraries.integers().between(0, 7),
                Arbitraries.integers().between(1, 8))
            .as(GpuInstance::new);
    return Combinators.combine(
            Arbitraries.integers().between(0, 15),
            text(),
            Arbitraries.longs().between(1, 200_000),
            Arbitraries.of(MigMode.class),
            Arbitraries.of(MigMode.class),
            instance.list().ofMaxSize(7).uniqueElements(GpuInstance::placementStart),
            Arbitraries.integers().between(0, 32),
            Arbitraries.of(GpuHealth.class))
        .as(
            (index, id, memory, mode, pending, instances, vfs, health) ->
                new Gpu(
                    index,
                    "GPU-" + id,
                    "0000:" + index + ":00.0",
                    "0x233010DE",
                    "NVIDIA " + id,
                    memory,
                    mode != MigMode.UNSUPPORTED,
                    mode,
                    pending,
                    instances,
                    vfs,
                    vfs / 2,
                    health));
  }

  static Arbitrary<String> names() {
    return Arbitraries.strings()
        .withCharRange('a', 'z')
        .numeric()
        .withChars('-')
        .ofMinLength(1)
        .ofMaxLength(40)
        .filter(s -> !s.isBlank());
  }

  private static Arbitrary<String> labelKeys() {
    return Arbitraries.strings()
        .withCharRange('a', 'z')
        .withChars('.', '/', '-')
        .ofMinLength(1)
        .ofMaxLength(20);
  }

  private static Arbitrary<String> text() {
    return Arbitraries.strings().all().ofMinLength(1).ofMaxLength(30).filter(s -> !s.isBlank());
  }

  /** Instants to the nanosecond, 1970 to 2096: the wire keeps every digit (UtcTimestamps). */
  public static Arbitrary<Instant> instants() {
    return Arbitraries.longs()
        .between(0, 4_000_000_000L)
        .flatMap(
            s ->
                Arbitraries.integers()
                    .between(0, 999_999_999)
                    .map(n -> Instant.ofEpochSecond(s, n)));
  }
}
