package io.fleetwave.controlplane.spec;

import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import java.util.List;

/** A validated desired spec still waiting for its generation. */
public record SpecDraft(String driverVersion, List<GpuSpec> gpus, GatePolicy gate) {
  public SpecDraft {
    gpus = List.copyOf(gpus);
  }

  public NodeSpec toSpec(String node, long generation) {
    return new NodeSpec(node, generation, driverVersion, gpus, gate);
  }
}
