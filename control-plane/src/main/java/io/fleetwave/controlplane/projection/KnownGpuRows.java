package io.fleetwave.controlplane.projection;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInventoryReported;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What this process last wrote or saw in each node's gpus rows: the node's inventory digest
 * (nodes.inventory_digest, V27) and a digest of each GPU's row, so that the writer can work out an
 * inventory's difference to the stored rows itself and send only the rows that differ, where the
 * whole-inventory statement has PostgreSQL look every reported GPU up three times to find them
 * (ProjectionTables.replaceGpus: 21 % of its time in the projection bench's backlog, about 110 us a
 * GPU).
 *
 * <p>Nothing here is trusted on its own. The difference is used only when the digest remembered is
 * the digest stored in the node's row, read under the node's lock in the same transaction: the
 * digest is of every column of every row the inventory wrote, so equal digests mean the stored rows
 * are the ones remembered, whichever process or transaction wrote them and whatever failed since (a
 * write whose transaction rolled back left the stored digest as it was, and the entry it left here
 * no longer matches). Anything else (a node not remembered, evicted, written by another replica, a
 * rebuild's scratch schema never seen) takes the whole-inventory statement.
 */
final class KnownGpuRows {
  /**
   * Nodes remembered, for all schemas together: about 200 bytes a node of 8 GPUs, so 20 MB at most;
   * a fleet larger than this per replica falls back to the whole-inventory statement for the nodes
   * evicted.
   */
  static final long NODES = 100_000;

  /** A node's rows as remembered: the inventory digest and, by GPU index, each row's digest. */
  private record Known(String digest, Map<Integer, GpuRowDigest> rows) {}

  /** What an inventory changes in rows known to be stored: rows to write, GPU indexes to delete. */
  record Difference(List<Gpu> written, List<Integer> gone) {}

  private final Cache<String, Known> nodes;

  KnownGpuRows(long bound) {
    nodes = Caffeine.newBuilder().maximumSize(bound).build();
  }

  /**
   * The difference from the rows stored for {@code node} in {@code tables} to {@code inventory}'s,
   * or null when what is remembered of them is not what is stored ({@code storedDigest}, read under
   * the node's lock; null: unknown).
   */
  Difference difference(
      ProjectionTables tables, String node, String storedDigest, GpuInventoryReported inventory) {
    Known known = storedDigest == null ? null : nodes.getIfPresent(key(tables, node));
    if (known == null || !known.digest().equals(storedDigest)) {
      return null;
    }
    List<Gpu> written = new ArrayList<>();
    Map<Integer, GpuRowDigest> gone = new HashMap<>(known.rows());
    for (Gpu gpu : inventory.gpus()) {
      GpuRowDigest stored = gone.remove(gpu.index());
      if (!GpuRowDigest.of(gpu).equals(stored)) {
        written.add(gpu);
      }
    }
    return new Difference(written, List.copyOf(gone.keySet()));
  }

  /** The rows of {@code node} in {@code tables} are {@code inventory}'s, whose digest is given. */
  void remember(
      ProjectionTables tables, String node, String digest, GpuInventoryReported inventory) {
    Map<Integer, GpuRowDigest> rows = HashMap.newHashMap(inventory.gpus().size());
    for (Gpu gpu : inventory.gpus()) {
      rows.put(gpu.index(), GpuRowDigest.of(gpu));
    }
    nodes.put(key(tables, node), new Known(digest, rows));
  }

  private static String key(ProjectionTables tables, String node) {
    return tables.schema() + '/' + node;
  }

  /**
   * The first 128 bits of the SHA-256 of one GPU's row, as {@link InventoryRows#digest} hashes it.
   */
  record GpuRowDigest(long high, long low) {
    static GpuRowDigest of(Gpu gpu) {
      ByteBuffer sha = ByteBuffer.wrap(InventoryRows.digestOf(gpu));
      return new GpuRowDigest(sha.getLong(), sha.getLong());
    }
  }
}
