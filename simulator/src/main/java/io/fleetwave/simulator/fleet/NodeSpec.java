package io.fleetwave.simulator.fleet;

import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.HostOs;
import java.util.Collections;
import java.util.List;

/** One simulated node of a fleet file: its name and the group that describes it. */
public record NodeSpec(String name, NodeGroup group) {

  /** The model of each GPU, in index order. */
  public List<GpuModel> gpuModels() {
    return group.gpus().stream()
        .flatMap(g -> Collections.nCopies(g.count(), g.model()).stream())
        .toList();
  }

  public HostOs os() {
    return group.os();
  }
}
