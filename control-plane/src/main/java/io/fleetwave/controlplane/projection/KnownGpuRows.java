package io.fleetwave.controlplane.projection;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInventoryReported;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * What this process last wrote or saw in each node's gpus rows: the node's inventory digest
 * (nodes.inventory_digest, V27) and a digest of each GPU's row, so that the writer can work out an
 * inventory's difference to the stored rows itself and send only the rows that differ, where the
 * whole-inventory statement has PostgreSQL look every reported GPU up three times to find them
 * (ProjectionTables.replaceGpus: 21 % of its time in the projection bench's backlog, 73.9 ms a
 * batch, against 42.9 ms for the rows that differ: control-plane/BENCH.md, 2026-12-07).
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
   * Nodes remembered, for all schemas together: about 500 bytes a node of 8 GPUs (its digest's
   * text, the two arrays, the key and the cache's own entry), so about 25 MB at most. A replica's
   * share of a fleet is far below it (50,000 nodes heartbeating every 10 s is 5,000 events/s, about
   * what one consumer applies); past it, the nodes evicted take the whole-inventory statement.
   */
  static final long NODES = 50_000;

  /**
   * A node's rows as remembered: the inventory digest, and each GPU's index with the first 128 bits
   * of its row's SHA-256 (two longs a GPU), in arrays rather than boxed maps to keep a node small.
   */
  private static final class Known {
    private final String digest;
    private final int[] indexes;
    private final long[] rows;

    Known(String digest, List<Gpu> gpus) {
      this.digest = digest;
      this.indexes = new int[gpus.size()];
      this.rows = new long[2 * gpus.size()];
      for (int i = 0; i < gpus.size(); i++) {
        indexes[i] = gpus.get(i).index();
        ByteBuffer sha = ByteBuffer.wrap(InventoryRows.digestOf(gpus.get(i)));
        rows[2 * i] = sha.getLong();
        rows[2 * i + 1] = sha.getLong();
      }
    }

    /** Where GPU {@code index} is in the arrays, or -1. A node has a few GPUs: a scan. */
    int find(int index) {
      for (int i = 0; i < indexes.length; i++) {
        if (indexes[i] == index) {
          return i;
        }
      }
      return -1;
    }

    boolean sameRow(int at, Known other, int otherAt) {
      return rows[2 * at] == other.rows[2 * otherAt]
          && rows[2 * at + 1] == other.rows[2 * otherAt + 1];
    }
  }

  /** What an inventory changes in rows known to be stored: rows to write, GPU indexes to delete. */
  record Difference(List<Gpu> written, List<Integer> gone) {}

  private final Cache<String, Known> nodes;

  KnownGpuRows(long bound) {
    nodes = Caffeine.newBuilder().maximumSize(bound).build();
  }

  /**
   * Remembers that the rows of {@code node} in {@code tables} are {@code inventory}'s (whose digest
   * is {@code digest}) once this batch commits, and answers the difference from the rows stored now
   * to those, or null when what was remembered of them is not what is stored ({@code storedDigest},
   * read under the node's lock; null: unknown).
   *
   * <p>Remembered before the commit: should it fail, the stored digest stays the old one, and the
   * entry no longer matches it.
   */
  Difference update(
      ProjectionTables tables,
      String node,
      String storedDigest,
      String digest,
      GpuInventoryReported inventory) {
    String key = key(tables, node);
    Known before = storedDigest == null ? null : nodes.getIfPresent(key);
    if (before != null && before.digest.equals(storedDigest) && digest.equals(storedDigest)) {
      // A restatement of rows known to be stored (most inventories): nothing to write, and
      // nothing new to remember, so no GPU is hashed again.
      return new Difference(List.of(), List.of());
    }
    Known after = new Known(digest, inventory.gpus());
    nodes.put(key, after);
    if (before == null || !before.digest.equals(storedDigest)) {
      return null;
    }
    List<Gpu> written = new ArrayList<>();
    boolean[] kept = new boolean[before.indexes.length];
    for (int i = 0; i < after.indexes.length; i++) {
      int stored = before.find(after.indexes[i]);
      if (stored >= 0) {
        kept[stored] = true;
      }
      if (stored < 0 || !after.sameRow(i, before, stored)) {
        written.add(inventory.gpus().get(i));
      }
    }
    List<Integer> gone = new ArrayList<>();
    for (int i = 0; i < kept.length; i++) {
      if (!kept[i]) {
        gone.add(before.indexes[i]);
      }
    }
    return new Difference(written, gone);
  }

  private static String key(ProjectionTables tables, String node) {
    return tables.schema() + '/' + node;
  }
}
