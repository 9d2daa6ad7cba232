package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.database.ColumnArrays;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.GpuInventoryReported;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The GPUs and MIG instances of a batch's inventories as column arrays, so that each table takes
 * one statement over unnest(...) per batch instead of one execution per row.
 */
final class InventoryRows {
  /** One row of gpus: a GPU of a node. */
  private record NodeGpu(String node, Gpu gpu) {}

  /** A MIG instance of a GPU of a node: a row of inventory_history's instance columns. */
  private record NodeInstance(String node, int gpu, GpuInstance instance) {}

  private final List<NodeGpu> gpus = new ArrayList<>();
  private final List<NodeInstance> instances = new ArrayList<>();

  /**
   * A digest of the rows that {@link #add} writes for the inventory, in the order it writes them:
   * equal digests, equal rows (kept in {@code nodes.inventory_digest}, V27). Two inventories that
   * list the same GPUs in another order differ, and are written: a needless write, never a missed
   * one.
   */
  static String digest(GpuInventoryReported inventory) {
    MessageDigest sha = sha256();
    for (Gpu gpu : inventory.gpus()) {
      row(sha, gpu);
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  /** The SHA-256 of one GPU's row as {@link #digest} hashes it (KnownGpuRows). */
  static byte[] digestOf(Gpu gpu) {
    MessageDigest sha = sha256();
    row(sha, gpu);
    return sha.digest();
  }

  private static void row(MessageDigest sha, Gpu gpu) {
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
    inventory.gpus().forEach(gpu -> add(node, gpu));
  }

  void add(String node, Gpu gpu) {
    gpus.add(new NodeGpu(node, gpu));
    for (GpuInstance instance : gpu.instances()) {
      instances.add(new NodeInstance(node, gpu.index(), instance));
    }
  }

  boolean isEmpty() {
    return gpus.isEmpty();
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
    Tuple gpus = rows.gpuColumns().tuple();
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

  /**
   * The reported columns of {@link ProjectionTables#replaceGpus} and {@link
   * ProjectionTables#upsertGpus}, in order.
   */
  Tuple gpus() {
    return gpuColumns().strings(row -> instances(row.gpu())).tuple();
  }

  /** The GPUs' own columns, without their instances (inventory_history has its own). */
  private ColumnArrays<NodeGpu> gpuColumns() {
    return ColumnArrays.of(gpus)
        .strings(NodeGpu::node)
        .integers(row -> row.gpu().index())
        .strings(row -> row.gpu().uuid())
        .strings(row -> row.gpu().pciBusId())
        .strings(row -> row.gpu().pciDeviceId())
        .strings(row -> row.gpu().product())
        .longs(row -> row.gpu().memoryMiB())
        .booleans(row -> row.gpu().migCapable())
        .strings(row -> row.gpu().migMode().wireName())
        .strings(row -> row.gpu().migModePending().wireName())
        .integers(row -> row.gpu().vfsTotal())
        .integers(row -> row.gpu().vfsEnabled())
        .strings(row -> row.gpu().health().wireName());
  }

  /**
   * A GPU's MIG instances as gpus.instances holds them (V45), by placement: the JSON text of
   * [{"profile", "placement_start", "placement_size"}, ...]. V45 writes the same keys, values and
   * order, so the rows it carried over equal the rows a rebuild writes.
   */
  static String instances(Gpu gpu) {
    JsonArray instances = new JsonArray();
    List<GpuInstance> byPlacement =
        gpu.instances().stream()
            .sorted(Comparator.comparingInt(GpuInstance::placementStart))
            .toList();
    for (GpuInstance instance : byPlacement) {
      instances.add(
          new JsonObject()
              .put("profile", instance.profile())
              .put("placement_start", instance.placementStart())
              .put("placement_size", instance.placementSize()));
    }
    return instances.encode();
  }

  /** The instances' columns of inventory_history's row ({@link #historyRow}), in order. */
  private Tuple instances() {
    return ColumnArrays.of(instances)
        .strings(NodeInstance::node)
        .integers(NodeInstance::gpu)
        .strings(row -> row.instance().profile())
        .integers(row -> row.instance().placementStart())
        .integers(row -> row.instance().placementSize())
        .tuple();
  }
}
