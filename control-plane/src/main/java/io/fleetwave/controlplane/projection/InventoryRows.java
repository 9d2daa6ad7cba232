package io.fleetwave.controlplane.projection;

import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.GpuInventoryReported;
import io.vertx.mutiny.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
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

  /**
   * A digest of the rows that {@link #add} writes for the inventory, in the order it writes them:
   * equal digests, equal rows (kept in {@code nodes.inventory_digest}, V27). Two inventories that
   * list the same GPUs in another order differ, and are written: a needless write, never a missed
   * one.
   */
  static String digest(GpuInventoryReported inventory) {
    MessageDigest sha = sha256();
    for (Gpu gpu : inventory.gpus()) {
      field(sha, "gpu");
      field(sha, Integer.toString(gpu.index()));
      field(sha, gpu.uuid());
      field(sha, gpu.pciBusId());
      field(sha, gpu.pciDeviceId());
      field(sha, gpu.product());
      field(sha, Long.toString(gpu.memoryMiB()));
      field(sha, Boolean.toString(gpu.migCapable()));
      field(sha, gpu.migMode().wireName());
      field(sha, gpu.migModePending().wireName());
      field(sha, Integer.toString(gpu.vfsTotal()));
      field(sha, Integer.toString(gpu.vfsEnabled()));
      field(sha, gpu.health().wireName());
      for (GpuInstance instance : gpu.instances()) {
        field(sha, "instance");
        field(sha, instance.profile());
        field(sha, Integer.toString(instance.placementStart()));
        field(sha, Integer.toString(instance.placementSize()));
      }
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  /** A value and its length, so that no two sequences of values hash the same bytes. */
  private static void field(MessageDigest sha, String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    sha.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
    sha.update((byte) ':');
    sha.update(bytes);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

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
