package io.fleetwave.core.rollout.plan;

import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.MigMode;
import java.util.List;

/**
 * The MIG change of one GPU.
 *
 * @param model catalogue short name, or the PCI id for a model outside the catalogue
 * @param fromMode current MIG mode
 * @param toMigEnabled MIG mode wanted
 * @param from current instances
 * @param to wanted instances with their placements
 * @param resetNeeded whether a GPU reset commits the mode change (Ampere)
 * @param vfsTouched SR-IOV VFs enabled on the GPU that the change disturbs
 */
public record GpuChange(
    int gpuIndex,
    String model,
    MigMode fromMode,
    boolean toMigEnabled,
    List<GpuInstance> from,
    List<GpuInstance> to,
    boolean resetNeeded,
    int vfsTouched) {
  public GpuChange {
    from = List.copyOf(from);
    to = List.copyOf(to);
  }
}
