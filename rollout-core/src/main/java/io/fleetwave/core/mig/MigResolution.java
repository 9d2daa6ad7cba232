package io.fleetwave.core.mig;

import java.util.List;

/** A named config resolved for every GPU of one node, in GPU index order. */
public record MigResolution(String configName, List<GpuResolution> gpus) {
  public MigResolution {
    gpus = List.copyOf(gpus);
  }

  public List<GpuResolution.Configured> configured() {
    return gpus.stream()
        .filter(GpuResolution.Configured.class::isInstance)
        .map(GpuResolution.Configured.class::cast)
        .toList();
  }

  public List<GpuResolution.Invalid> invalid() {
    return gpus.stream()
        .filter(GpuResolution.Invalid.class::isInstance)
        .map(GpuResolution.Invalid.class::cast)
        .toList();
  }

  public List<GpuResolution.Unmatched> unmatched() {
    return gpus.stream()
        .filter(GpuResolution.Unmatched.class::isInstance)
        .map(GpuResolution.Unmatched.class::cast)
        .toList();
  }
}
