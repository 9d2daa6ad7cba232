package io.fleetwave.events.node;

import static io.fleetwave.events.node.Require.notBlank;
import static io.fleetwave.events.node.Require.notNegative;
import static io.fleetwave.events.node.Require.notNull;

import java.util.List;

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

  public Gpu {
    notNegative(index, "index");
    notBlank(uuid, "uuid");
    notBlank(pciBusId, "pciBusId");
    notBlank(pciDeviceId, "pciDeviceId");
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
