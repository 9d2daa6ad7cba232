package io.fleetwave.agent.reconcile;

import io.fleetwave.agent.gpu.GpuBackend;
import io.fleetwave.events.node.Gpu;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The state of a node the reconciler plans from.
 *
 * @param gpus every GPU of the node
 * @param gateReleased whether the device-plugin gate is released now
 */
public record ObservedNode(List<ObservedGpu> gpus, boolean gateReleased) {
  public ObservedNode {
    gpus = List.copyOf(gpus);
  }

  /** Reads the node from a backend (each call bounded by the backend's own timeouts). */
  public static ObservedNode read(GpuBackend backend, boolean gateReleased) {
    List<ObservedGpu> gpus = new ArrayList<>();
    for (Gpu gpu : backend.inventory()) {
      int index = gpu.index();
      gpus.add(
          new ObservedGpu(
              gpu,
              gpu.vfsEnabled() > 0 ? backend.virtualFunctions(index) : List.of(),
              backend.computeProcesses(index),
              backend.handleHolders(index)));
    }
    return new ObservedNode(gpus, gateReleased);
  }

  public Optional<ObservedGpu> gpu(int index) {
    return gpus.stream().filter(g -> g.index() == index).findFirst();
  }
}
