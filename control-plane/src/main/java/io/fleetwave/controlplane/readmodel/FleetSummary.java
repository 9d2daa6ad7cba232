package io.fleetwave.controlplane.readmodel;

import java.util.List;
import java.util.Map;

/**
 * Counts over the whole fleet. Nodes not yet registered count under host kind {@code unregistered}.
 */
public record FleetSummary(
    long totalNodes,
    long totalGpus,
    Map<String, Long> hostKinds,
    List<GpuModelCount> gpuModels,
    Map<String, Long> migModes,
    Map<String, Long> health) {

  public record GpuModelCount(String pciDeviceId, String product, long gpus, long nodes) {}
}
