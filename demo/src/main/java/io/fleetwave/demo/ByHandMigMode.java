package io.fleetwave.demo;

import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.simulator.SimulatedGpuBackend;

/**
 * A MIG mode changed the way a person does it with nvidia-smi: the GPU's instances destroyed
 * ({@code mig -dci}, {@code -dgi}), the mode set ({@code -mig}), and the GPU reset ({@code -r})
 * where the model keeps the new mode pending until then.
 */
final class ByHandMigMode {
  private ByHandMigMode() {}

  static void set(SimulatedGpuBackend gpus, int index, boolean enabled) {
    Gpu gpu =
        gpus.inventory().stream()
            .filter(g -> g.index() == index)
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no GPU " + index + " on this node"));
    for (GpuInstance instance : gpu.instances()) {
      gpus.destroyGpuInstance(index, instance.placementStart());
    }
    gpus.setMigMode(index, enabled);
    Gpu after = gpus.inventory().stream().filter(g -> g.index() == index).findFirst().orElseThrow();
    if (after.migMode() != after.migModePending()) {
      gpus.resetGpu(index);
    }
  }
}
