package io.fleetwave.controlplane.projection;

import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.GpuInventoryReported;
import io.vertx.mutiny.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * The GPUs and MIG instances of a batch's inventories as column arrays, so that each table takes
 * one statement over unnest(...) per batch instead of one execution per row.
 */
final class InventoryRows {
  private final List<String> gpuNodes = new ArrayList<>();
  private final List<Integer> gpuIndexes = new ArrayList<>();
  private final List<String> uuids = new ArrayList<>();
  private final List<String> pciBusIds = new ArrayList<>();
  private final List<String> pciDeviceIds = new ArrayList<>();
  private final List<String> products = new ArrayList<>();
  private final List<Long> memories = new ArrayList<>();
  private final List<Boolean> migCapables = new ArrayList<>();
  private final List<String> migModes = new ArrayList<>();
  private final List<String> migModesPending = new ArrayList<>();
  private final List<Integer> vfsTotals = new ArrayList<>();
  private final List<Integer> vfsEnableds = new ArrayList<>();
  private final List<String> healths = new ArrayList<>();
  private final List<String> instanceNodes = new ArrayList<>();
  private final List<Integer> instanceGpus = new ArrayList<>();
  private final List<String> profiles = new ArrayList<>();
  private final List<Integer> placementStarts = new ArrayList<>();
  private final List<Integer> placementSizes = new ArrayList<>();

  void add(String node, GpuInventoryReported inventory) {
    for (Gpu gpu : inventory.gpus()) {
      gpuNodes.add(node);
      gpuIndexes.add(gpu.index());
      uuids.add(gpu.uuid());
      pciBusIds.add(gpu.pciBusId());
      pciDeviceIds.add(gpu.pciDeviceId());
      products.add(gpu.product());
      memories.add(gpu.memoryMiB());
      migCapables.add(gpu.migCapable());
      migModes.add(gpu.migMode().wireName());
      migModesPending.add(gpu.migModePending().wireName());
      vfsTotals.add(gpu.vfsTotal());
      vfsEnableds.add(gpu.vfsEnabled());
      healths.add(gpu.health().wireName());
      for (GpuInstance instance : gpu.instances()) {
        instanceNodes.add(node);
        instanceGpus.add(gpu.index());
        profiles.add(instance.profile());
        placementStarts.add(instance.placementStart());
        placementSizes.add(instance.placementSize());
      }
    }
  }

  /** The reported columns of {@link ProjectionTables#replaceGpus}, in order. */
  Tuple gpus() {
    return Tuple.tuple()
        .addArrayOfString(gpuNodes.toArray(String[]::new))
        .addArrayOfInteger(gpuIndexes.toArray(Integer[]::new))
        .addArrayOfString(uuids.toArray(String[]::new))
        .addArrayOfString(pciBusIds.toArray(String[]::new))
        .addArrayOfString(pciDeviceIds.toArray(String[]::new))
        .addArrayOfString(products.toArray(String[]::new))
        .addArrayOfLong(memories.toArray(Long[]::new))
        .addArrayOfBoolean(migCapables.toArray(Boolean[]::new))
        .addArrayOfString(migModes.toArray(String[]::new))
        .addArrayOfString(migModesPending.toArray(String[]::new))
        .addArrayOfInteger(vfsTotals.toArray(Integer[]::new))
        .addArrayOfInteger(vfsEnableds.toArray(Integer[]::new))
        .addArrayOfString(healths.toArray(String[]::new));
  }

  /** The reported columns of {@link ProjectionTables#replaceInstances}, in order. */
  Tuple instances() {
    return Tuple.tuple()
        .addArrayOfString(instanceNodes.toArray(String[]::new))
        .addArrayOfInteger(instanceGpus.toArray(Integer[]::new))
        .addArrayOfString(profiles.toArray(String[]::new))
        .addArrayOfInteger(placementStarts.toArray(Integer[]::new))
        .addArrayOfInteger(placementSizes.toArray(Integer[]::new));
  }
}
