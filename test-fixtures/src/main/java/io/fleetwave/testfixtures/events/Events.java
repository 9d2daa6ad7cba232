package io.fleetwave.testfixtures.events;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.AgentStopping;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/** Node events for tests, with fixed times so that projections compare exactly. */
public final class Events {
  public static final String H100 = "0x233010DE";
  public static final String H200 = "0x233510DE";
  public static final String L4 = "0x27B810DE";
  private static final URI SOURCE = URI.create("urn:fleetwave:test");
  private static final Instant T0 = Instant.parse("2026-11-01T10:00:00.123456Z");

  private Events() {}

  public static <E extends NodeEvent> Envelope<NodeEvent> envelope(
      String node, long epoch, long seq, E data) {
    return Envelope.of(SOURCE, node, T0.plusSeconds(epoch * 1000 + seq), epoch, seq, data);
  }

  public static NodeRegistered registered(
      String node, HostKind kind, String driverVersion, Map<String, String> labels) {
    // Every kind but Talos and COS reports Ubuntu's facts here (FleetNodes has the driver
    // container's own).
    NodeRegisteredBuilder facts =
        switch (kind) {
          case TALOS ->
              NodeRegisteredBuilder.forHost(node, kind)
                  .zone("zone-b")
                  .reasons(Map.of("driverRoot", "talos system extension under /usr/local"));
          case COS -> NodeRegisteredBuilder.forHost(node, kind).zone("zone-c");
          default ->
              NodeRegisteredBuilder.forHost(node, HostKind.UBUNTU).hostKind(kind).zone("zone-a");
        };
    return facts.driverVersion(driverVersion).labels(labels).build();
  }

  public static GpuInventoryReported inventory(String model, int count, MigMode mode) {
    return new GpuInventoryReported(
        IntStream.range(0, count).mapToObj(i -> gpu(i, model, mode)).toList());
  }

  public static Gpu gpu(int index, String model, MigMode mode) {
    boolean mig = !model.equals(L4);
    MigMode current = mig ? mode : MigMode.UNSUPPORTED;
    List<GpuInstance> instances =
        current == MigMode.ENABLED
            ? List.of(new GpuInstance("3g.40gb", 0, 4), new GpuInstance("3g.40gb", 4, 4))
            : List.of();
    return GpuBuilder.gpu(index)
        .uuid("GPU-" + model + "-" + index)
        .pciDeviceId(model)
        .product(
            model.equals(L4)
                ? "NVIDIA L4"
                : model.equals(H200) ? "NVIDIA H200" : "NVIDIA H100 80GB HBM3")
        .memoryMiB(model.equals(L4) ? 23034 : model.equals(H200) ? 143771 : 81559)
        .migCapable(mig)
        .migMode(current)
        .instances(instances)
        .build();
  }

  public static Heartbeat heartbeat(long uptime) {
    return new Heartbeat("boot-1", uptime);
  }

  public static AgentStopping stopping() {
    return new AgentStopping("test");
  }
}
