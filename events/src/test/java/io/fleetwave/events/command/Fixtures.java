package io.fleetwave.events.command;

import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Specs and commands shared by the command, codec and signature tests. */
public final class Fixtures {
  public static final URI CONTROL_PLANE = URI.create("fleetwave:control-plane");
  public static final Instant ISSUED = Instant.parse("2026-11-29T10:15:30.123456789Z");
  public static final Instant EXPIRES = ISSUED.plusSeconds(300);

  private Fixtures() {}

  /** The issue's example: an H200 vGPU host with MIG, 4 VFs and a vGPU type. */
  public static NodeSpec vgpuSpec(String node, long generation) {
    return new NodeSpec(
        node,
        generation,
        null,
        List.of(
            new GpuSpec(
                0,
                true,
                Map.of("1g.18gb", 2, "2g.35gb", 1, "3g.71gb", 1),
                4,
                Map.of(0, "H200-1-18C", 3, "H200-3-71C"))),
        GatePolicy.HOLD_UNTIL_APPLIED);
  }

  public static CommandEnvelope apply(String node, long generation) {
    return CommandEnvelope.of(
        CONTROL_PLANE, node, ISSUED, new ApplyNodeSpec(vgpuSpec(node, generation), ISSUED, null));
  }

  public static CommandEnvelope reset(String node, int gpu, long generation) {
    return CommandEnvelope.of(
        CONTROL_PLANE, node, ISSUED, new ResetGpu(gpu, generation, ISSUED, EXPIRES));
  }
}
