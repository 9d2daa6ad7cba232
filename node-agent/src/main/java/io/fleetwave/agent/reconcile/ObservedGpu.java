package io.fleetwave.agent.reconcile;

import io.fleetwave.agent.gpu.GpuProcess;
import io.fleetwave.agent.gpu.VirtualFunction;
import io.fleetwave.events.node.Gpu;
import java.util.List;
import java.util.Objects;

/**
 * What the reconciler needs to know of one GPU beyond its inventory record.
 *
 * @param gpu the inventory record (MIG mode current and pending, instances, VFs enabled/total)
 * @param vfs the enabled VFs with their current vGPU types
 * @param processes compute processes running on it
 * @param holders other clients holding it open (nvidia-persistenced, DCGM, ...)
 */
public record ObservedGpu(
    Gpu gpu, List<VirtualFunction> vfs, List<GpuProcess> processes, List<String> holders) {
  public ObservedGpu {
    Objects.requireNonNull(gpu, "gpu");
    vfs = List.copyOf(vfs);
    processes = List.copyOf(processes);
    holders = List.copyOf(holders);
  }

  public int index() {
    return gpu.index();
  }

  /** The vGPU type id on a VF, 0 for none or for a VF that is not enabled. */
  public int vgpuTypeOn(int vf) {
    return vfs.stream()
        .filter(v -> v.index() == vf)
        .mapToInt(VirtualFunction::currentVgpuTypeId)
        .findFirst()
        .orElse(0);
  }
}
