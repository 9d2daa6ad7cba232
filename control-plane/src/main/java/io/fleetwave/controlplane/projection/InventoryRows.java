package io.fleetwave.controlplane.projection;

import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.GpuInventoryReported;
import io.vertx.mutiny.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

  /**
   * One inventory's row of inventory_history (V42), for {@link ProjectionTables#insertInventory}:
   * the event's node, epoch, seq and time; the columns of {@link #gpus} and {@link #instances}
   * without their node arrays; and the GPUs counted by PCI device id, product, MIG mode and health
   * in the order first reported (what the fleet summary counts: a few entries a node, where
   * counting its GPU rows as of a past moment took 80,000 rows at 10,000 nodes).
   */
  static Tuple historyRow(
      String node, long epoch, long seq, OffsetDateTime time, GpuInventoryReported inventory) {
    InventoryRows rows = new InventoryRows();
    rows.add(node, inventory);
    Tuple row = Tuple.tuple().addString(node).addLong(epoch).addLong(seq).addOffsetDateTime(time);
    Tuple gpus = rows.gpus();
    for (int i = 1; i < gpus.size(); i++) {
      row.addValue(gpus.getValue(i));
    }
    Tuple instances = rows.instances();
    for (int i = 1; i < instances.size(); i++) {
      row.addValue(instances.getValue(i));
    }
    Map<List<String>, Integer> counts = new LinkedHashMap<>();
    for (Gpu gpu : inventory.gpus()) {
      counts.merge(
          List.of(
              gpu.pciDeviceId(), gpu.product(), gpu.migMode().wireName(), gpu.health().wireName()),
          1,
          Integer::sum);
    }
    for (int column = 0; column < 4; column++) {
      int c = column;
      row.addArrayOfString(counts.keySet().stream().map(key -> key.get(c)).toArray(String[]::new));
    }
    return row.addArrayOfInteger(counts.values().toArray(Integer[]::new));
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
