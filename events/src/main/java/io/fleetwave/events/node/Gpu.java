package io.fleetwave.events.node;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNegative;
import static io.fleetwave.events.payload.Require.notNull;

import io.fleetwave.events.payload.Require;
import java.util.List;
import java.util.regex.Pattern;

/** One physical GPU of a node, as reported in {@link GpuInventoryReported}. */
public record Gpu(
    int index,
    String uuid,
    String pciBusId,
    String pciDeviceId,
    String product,
    long memoryMiB,
    boolean migCapable,
    MigMode migMode,
    MigMode migModePending,
    List<GpuInstance> instances,
    int vfsTotal,
    int vfsEnabled,
    GpuHealth health) {
  private static final Pattern PCI_DEVICE_ID = Pattern.compile("0x[0-9A-Fa-f]{8}");

  public Gpu {
    notNegative(index, "index");
    notBlank(uuid, "uuid");
    notBlank(pciBusId, "pciBusId");
    notBlank(pciDeviceId, "pciDeviceId");
    // The read model, the GPU catalogue and MIG device filters all take it apart as 0x + device +
    // vendor (NVML's pciDeviceId); anything else would be stored and break them for everyone.
    if (!PCI_DEVICE_ID.matcher(pciDeviceId).matches()) {
      throw new IllegalArgumentException(
          "field 'pciDeviceId' must be 0x and eight hex digits (device + vendor, e.g."
              + " 0x233010DE): "
              + pciDeviceId);
    }
    notBlank(product, "product");
    if (memoryMiB <= 0) {
      throw new IllegalArgumentException("field 'memoryMiB' must be positive: " + memoryMiB);
    }
    notNull(migMode, "migMode");
    notNull(migModePending, "migModePending");
    notNull(health, "health");
    notNegative(vfsTotal, "vfsTotal");
    notNegative(vfsEnabled, "vfsEnabled");
    if (vfsEnabled > vfsTotal) {
      throw new IllegalArgumentException(
          "field 'vfsEnabled' (" + vfsEnabled + ") exceeds 'vfsTotal' (" + vfsTotal + ")");
    }
    instances =
        Require.distinct(
            instances == null ? List.of() : List.copyOf(instances),
            GpuInstance::placementStart,
            "instances",
            "placementStart");
  }
}
