package io.fleetwave.controlplane.bench;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.testfixtures.events.GpuBuilder;
import io.fleetwave.testfixtures.events.NodeRegisteredBuilder;
import java.net.URI;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The benchmark's synthetic fleet: node {@code i} sends a registration, an inventory of 8 H100s and
 * then heartbeats, with an inventory change every tenth event, so the projection sees the same mix
 * of small and large events an idle fleet produces. Each node's inventories fall on different seqs
 * ({@link #isInventory}), so that a load going round the fleet spreads them evenly: until
 * 2026-12-01 every node reported its inventory on the same seq, and a round-robin load sent the
 * whole fleet's inventories within one round (1,000 inventories a second), a storm that was read as
 * the projection's freshness tail.
 */
final class BenchFleet {
  static final long EPOCH = 1_764_000_000_000L;
  private static final HostKind[] KINDS = HostKind.values();

  private BenchFleet() {}

  static String nodeName(int node) {
    return "bench-%05d".formatted(node);
  }

  /** Event {@code seq} of node {@code node}. */
  static Envelope<NodeEvent> event(int node, long seq, Instant time) {
    if (seq == 0) {
      return envelope(node, seq, time, registration(node));
    }
    if (isInventory(node, seq)) {
      return envelope(node, seq, time, inventory(node, (int) (seq / 10) % 3));
    }
    return heartbeat(node, seq, time);
  }

  /** The first event after the registration, then one in ten, on a seq that depends on the node. */
  static boolean isInventory(int node, long seq) {
    return seq == 1 || (seq > 1 && (seq + node) % 10 == 1);
  }

  /** A heartbeat as event {@code seq} of node {@code node}, whatever that seq carries otherwise. */
  static Envelope<NodeEvent> heartbeat(int node, long seq, Instant time) {
    return envelope(node, seq, time, new Heartbeat("boot-" + node, seq * 10));
  }

  private static Envelope<NodeEvent> envelope(int node, long seq, Instant time, NodeEvent data) {
    String name = nodeName(node);
    return Envelope.of(URI.create("fleetwave:bench/" + name), name, time, EPOCH, seq, data);
  }

  static byte[] encoded(int node, long seq) {
    return EventCodec.encode(event(node, seq, Instant.now().truncatedTo(ChronoUnit.MICROS)));
  }

  private static NodeRegistered registration(int node) {
    HostKind kind = KINDS[node % KINDS.length];
    return NodeRegisteredBuilder.forHost(nodeName(node), HostKind.UBUNTU)
        .hostKind(kind)
        .os("ubuntu", "22.04")
        .kernel("5.15.0-1048-nvidia")
        .zone("zone-" + (node % 4))
        .labels(Map.of("pool", node % 2 == 0 ? "training" : "inference"))
        .reasons(Map.of("driverRoot", "bench"))
        .build();
  }

  private static GpuInventoryReported inventory(int node, int variant) {
    List<Gpu> gpus = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      List<GpuInstance> instances =
          variant == 0
              ? List.of()
              : List.of(new GpuInstance("3g.40gb", 0, 4), new GpuInstance("3g.40gb", 4, 4));
      gpus.add(
          GpuBuilder.gpu(i)
              .uuid("GPU-%05d-%d".formatted(node, i))
              .pciBusId("0000:%02x:00.0".formatted(0x10 + i))
              .pciDeviceId("0x233010DE")
              .product("NVIDIA H100 80GB HBM3")
              .memoryMiB(81559)
              .migCapable(true)
              .migMode(variant == 0 ? MigMode.DISABLED : MigMode.ENABLED)
              .instances(instances)
              .build());
    }
    return new GpuInventoryReported(gpus);
  }
}
