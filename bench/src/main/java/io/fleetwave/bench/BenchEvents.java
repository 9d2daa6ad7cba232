package io.fleetwave.bench;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.testfixtures.events.GpuBuilder;
import io.fleetwave.testfixtures.events.NodeRegisteredBuilder;
import java.net.URI;
import java.time.Instant;
import java.util.stream.IntStream;

/**
 * The node events the codec and authenticity benches measure: the most frequent (a heartbeat), a
 * registration and the largest (an 8 x H100 inventory), as one node's envelope.
 */
final class BenchEvents {
  static final String NODE = "gpu-node-0042";
  private static final GpuModel H100 = GpuCatalog.bundled().find("0x233010DE").orElseThrow();

  private BenchEvents() {}

  /** The event named by a bench's {@code event} parameter: heartbeat, registered or inventory. */
  static Envelope<NodeEvent> envelope(String event) {
    NodeEvent data =
        switch (event) {
          case "heartbeat" -> new Heartbeat("0b8e6c2e-5d1c-4f7a-9c1e-3f2b7a6d9e01", 86_400);
          case "registered" -> NodeRegisteredBuilder.forHost(NODE, HostKind.UBUNTU).build();
          case "inventory" ->
              new GpuInventoryReported(
                  IntStream.range(0, 8).mapToObj(i -> GpuBuilder.of(H100, i).build()).toList());
          default -> throw new IllegalArgumentException("unknown event " + event);
        };
    return Envelope.of(
        URI.create("fleetwave:agent/" + NODE),
        NODE,
        Instant.parse("2026-12-01T00:00:00Z"),
        3,
        1042,
        data);
  }
}
