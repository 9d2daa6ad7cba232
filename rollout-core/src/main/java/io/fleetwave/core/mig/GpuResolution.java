package io.fleetwave.core.mig;

import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.GpuInstance;
import java.util.List;

/** What a named config means for one GPU of a node. */
public sealed interface GpuResolution {
  int gpuIndex();

  String pciDeviceId();

  /**
   * An entry matched and its layout fits.
   *
   * @param model the catalogue model, or null for a model unknown to the catalogue (only possible
   *     with {@code migEnabled == false})
   * @param placements concrete instance placements, empty when MIG is disabled
   */
  record Configured(
      int gpuIndex,
      String pciDeviceId,
      GpuModel model,
      MigConfigEntry entry,
      boolean migEnabled,
      List<GpuInstance> placements)
      implements GpuResolution {
    public Configured {
      placements = List.copyOf(placements);
    }
  }

  /** An entry matched but its layout cannot be applied to this GPU. */
  record Invalid(int gpuIndex, String pciDeviceId, MigConfigEntry entry, List<String> errors)
      implements GpuResolution {
    public Invalid {
      errors = List.copyOf(errors);
    }
  }

  /** No entry matched: the GPU keeps its current state. */
  record Unmatched(int gpuIndex, String pciDeviceId, String reason) implements GpuResolution {}
}
