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
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Node events for tests, with times fixed for the run so that projections compare exactly: on the
 * day before the run's start (UTC), as a fleet's recent history is, inside the history a control
 * plane keeps (fleetwave.projection.history.retention) whatever the date the suite runs on.
 */
public final class Events {
  public static final String H100 = "0x233010DE";
  public static final String H200 = "0x233510DE";
  public static final String L4 = "0x27B810DE";
  private static final URI SOURCE = URI.create("urn:fleetwave:test");

  /**
   * The start (UTC midnight) of the day the events are dated on: the day before the run's. Taken
   * once, at class loading, on purpose: every event of a run keeps its time, so projections compare
   * exactly.
   */
  @SuppressWarnings("TimeInStaticInitializer")
  public static final Instant DAY =
      Instant.now().truncatedTo(ChronoUnit.DAYS).minus(1, ChronoUnit.DAYS);

  private static final Instant T0 = DAY.plus(Duration.ofHours(10)).plusNanos(123_456_000);

  private Events() {}

  public static <E extends NodeEvent> Envelope<NodeEvent> envelope(
      String node, long epoch, long seq, E data) {
    return Envelope.of(SOURCE, node, time(epoch, seq), epoch, seq, data);
  }

  /** The time of the event at {@code epoch}, {@code seq} ({@link #envelope}). */
  public static Instant time(long epoch, long seq) {
    return T0.plusSeconds(epoch * 1000 + seq);
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
