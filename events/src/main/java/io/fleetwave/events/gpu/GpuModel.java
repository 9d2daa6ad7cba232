package io.fleetwave.events.gpu;

import java.util.List;
import java.util.Optional;

/**
 * What Fleetwave knows of one GPU model. Data, not code: see {@code gpu-models.yaml}.
 *
 * @param pciDeviceIds every PCI device id + vendor this model answers to
 * @param product product name as NVML reports it
 * @param shortName short name for dashboards
 * @param architecture ampere, hopper, blackwell, ada, turing
 * @param memoryMiB framebuffer memory
 * @param migModeChangeNeedsReset whether a MIG mode change is pending until a GPU reset
 * @param migModeSurvivesReboot whether the MIG mode is kept across a reboot
 * @param minDriverVersion the oldest driver that serves it (MIG on it, for MIG models), or null
 * @param sriovVfs virtual functions the model offers (0: no SR-IOV)
 * @param mig the MIG geometry, or null for non-MIG models
 * @param vgpuTypes vGPU types its VFs can take
 */
public record GpuModel(
    List<String> pciDeviceIds,
    String product,
    String shortName,
    String architecture,
    long memoryMiB,
    boolean migModeChangeNeedsReset,
    boolean migModeSurvivesReboot,
    String minDriverVersion,
    int sriovVfs,
    MigGeometry mig,
    List<VgpuType> vgpuTypes) {

  public GpuModel {
    pciDeviceIds = List.copyOf(pciDeviceIds);
    vgpuTypes = vgpuTypes == null ? List.of() : List.copyOf(vgpuTypes);
  }

  public boolean migCapable() {
    return mig != null;
  }

  public boolean sriovCapable() {
    return sriovVfs > 0;
  }

  /** The primary PCI device id, used when a fleet file names the model by its short name. */
  public String pciDeviceId() {
    return pciDeviceIds.getFirst();
  }

  public Optional<MigProfile> profile(String name) {
    if (mig == null) {
      return Optional.empty();
    }
    return mig.profiles().stream().filter(p -> p.name().equals(name)).findFirst();
  }

  public Optional<VgpuType> vgpuType(String name) {
    return vgpuTypes.stream().filter(t -> t.name().equals(name)).findFirst();
  }
}
