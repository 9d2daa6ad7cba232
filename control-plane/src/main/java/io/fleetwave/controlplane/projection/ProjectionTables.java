package io.fleetwave.controlplane.projection;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The SQL of the projection's writes against one schema: {@code public} for the live projection, a
 * scratch schema for a rebuild. The same statements serve both, so a rebuild exercises exactly the
 * live apply code.
 */
public final class ProjectionTables {
  /** Tables in dependency order (parents first). */
  public static final List<String> TABLES =
      List.of(
          "nodes",
          "gpus",
          "node_events",
          "node_reconcile",
          "reconcile_steps",
          "node_provenance",
          "node_changes",
          "registration_history",
          "inventory_history");

  /**
   * The append-only tables of what happened to nodes, over time (the rest is each node's state
   * now): snapshots leave them out, and a rebuild compares them over the retained window only.
   */
  public static final List<String> HISTORIES =
      List.of("node_events", "node_changes", "registration_history", "inventory_history");

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  /**
   * The reported GPU rows as $1..$14 bind them (InventoryRows.gpus), named as gpus' columns: the
   * source of both GPU statements.
   */
  private static final String REPORTED_GPUS =
      "unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::text[], $6::text[],"
          + " $7::bigint[], $8::boolean[], $9::text[], $10::text[], $11::integer[],"
          + " $12::integer[], $13::text[], $14::text[]) AS r(node, gpu_index, uuid, pci_bus_id,"
          + " pci_device_id, product, memory_mib, mig_capable, mig_mode, mig_mode_pending,"
          + " vfs_total, vfs_enabled, health, instances)";

  /**
   * The live projection (declared after IDENTIFIER and REPORTED_GPUS, which its constructor uses).
   */
  public static final ProjectionTables LIVE = new ProjectionTables("public");

  private final String schema;
  final String ensureNodes;
  final String lockNodes;
  final String updateFacts;
  final String updatePosition;
  final String replaceGpus;
  final String upsertGpus;
  final String deleteGpus;
  final String insertHistory;
  final String insertRegistration;
  final String insertInventory;
  final String lowerRegistrationStates;
  final String lowerInventoryStates;
  final String selectReconciles;
  final String selectSteps;
  final String upsertReconcile;
  final String deleteSteps;
  final String insertStep;
  final ProvenanceRows provenance;

  public ProjectionTables(String schema) {
    if (!IDENTIFIER.matcher(schema).matches()) {
      throw new IllegalArgumentException("not a plain SQL identifier: '" + schema + "'");
    }
    this.schema = schema;
    String s = schema + ".";
    // Rows first, so that the row lock has something to lock even for a node never seen before.
    // Known nodes are left out by a plain index lookup: ON CONFLICT's speculative insertion, paid
    // for every node of every batch, was 6 % of PostgreSQL's time in the projection bench (a batch
    // of 5,000 known nodes: 13.7-14.7 ms, 7.7-9.5 ms with the lookup). ON CONFLICT still settles
    // a node that another writer inserts at the same moment.
    ensureNodes =
        "INSERT INTO "
            + s
            + "nodes (name, last_epoch, last_seq) SELECT n, -1, -1 FROM unnest($1::text[]) AS n"
            + " WHERE NOT EXISTS (SELECT 1 FROM "
            + s
            + "nodes AS k WHERE k.name = n) ORDER BY n ON CONFLICT (name) DO NOTHING";
    // NO KEY UPDATE, the lock the row's own UPDATE takes anyway: it serialises projection writers
    // of a node as FOR UPDATE did, but leaves foreign keys to the node (desired_specs, gpus)
    // unblocked.
    lockNodes =
        "SELECT name, last_epoch, last_seq, inventory_digest FROM "
            + s
            + "nodes WHERE name = ANY($1::text[]) ORDER BY name FOR NO KEY UPDATE";
    updateFacts =
        "UPDATE "
            + s
            + "nodes SET host_kind = $2, os_id = $3, os_version = $4, kernel = $5,"
            + " read_only_root = $6, systemd = $7, driver_root = $8, device_root = $9,"
            + " driver_provider = $10, driver_version = $11, zone = $12, labels = $13::jsonb,"
            + " reasons = $14::jsonb WHERE name = $1";
    // Whole-batch statements over arrays: one execution per batch instead of one per row.
    updatePosition =
        "UPDATE "
            + s
            + "nodes AS n SET last_epoch = u.epoch, last_seq = u.seq, last_seen = u.seen,"
            + " missed_events = n.missed_events + u.missed,"
            + " inventory_digest = coalesce(u.digest, n.inventory_digest) FROM"
            + " unnest($1::text[], $2::bigint[], $3::bigint[], $4::timestamptz[], $5::bigint[],"
            + " $6::text[]) AS u(name, epoch, seq, seen, missed, digest) WHERE n.name = u.name";
    // An inventory restates a node's GPUs as a whole, and mostly as they were: a node reports
    // again after a restart, a reconnect or a change to one GPU. Writing only the rows that
    // differ, in one statement per batch, spares the database what deleting and re-inserting
    // every row cost (pg_stat_statements, 2026-12-01: 63 % of its time in the backlog went to the
    // inventory rows, each insert paying its indexes and foreign-key check). The three parts
    // touch disjoint rows (gone: GPUs no longer reported; changed: reported GPUs with other
    // values; new: reported GPUs not stored), so sharing one snapshot is safe. A reported GPU
    // appears once: the event contract refuses an inventory that repeats a GPU index or a MIG
    // placement (GpuInventoryReported, Gpu). A GPU's MIG instances are in its row (V45), as the
    // JSON text of InventoryRows.instances: written with it, and only when the row changes at all
    // (until V45 a table of their own, each instance looked up three times: 34 % of the backlog).
    replaceGpus =
        "WITH reported AS (SELECT * FROM "
            + REPORTED_GPUS
            + "), gone AS (DELETE FROM "
            + s
            + "gpus AS g WHERE g.node = ANY($15::text[]) AND NOT EXISTS (SELECT 1 FROM reported"
            + " AS r WHERE r.node = g.node AND r.gpu_index = g.gpu_index)),"
            + " changed AS (UPDATE "
            + s
            + "gpus AS g SET uuid = r.uuid, pci_bus_id = r.pci_bus_id,"
            + " pci_device_id = r.pci_device_id, product = r.product, memory_mib = r.memory_mib,"
            + " mig_capable = r.mig_capable, mig_mode = r.mig_mode,"
            + " mig_mode_pending = r.mig_mode_pending, vfs_total = r.vfs_total,"
            + " vfs_enabled = r.vfs_enabled, health = r.health, instances = r.instances::jsonb"
            + " FROM reported AS r WHERE g.node = r.node AND g.gpu_index = r.gpu_index"
            + " AND (g.uuid, g.pci_bus_id, g.pci_device_id, g.product, g.memory_mib,"
            + " g.mig_capable, g.mig_mode, g.mig_mode_pending, g.vfs_total, g.vfs_enabled,"
            + " g.health, g.instances) IS DISTINCT FROM (r.uuid, r.pci_bus_id, r.pci_device_id,"
            + " r.product, r.memory_mib, r.mig_capable, r.mig_mode, r.mig_mode_pending,"
            + " r.vfs_total, r.vfs_enabled, r.health, r.instances::jsonb)) "
            + insertGpus(s, "reported AS r")
            + " WHERE NOT EXISTS (SELECT 1 FROM "
            + s
            + "gpus AS g WHERE g.node = r.node AND g.gpu_index = r.gpu_index)";
    // The rows an inventory changes where the writer knows the stored ones (KnownGpuRows): only
    // those are sent, each looked up once (a GPU the node did not report before is inserted).
    upsertGpus =
        insertGpus(s, REPORTED_GPUS)
            + " ON CONFLICT (node, gpu_index) DO UPDATE SET"
            + " uuid = EXCLUDED.uuid, pci_bus_id = EXCLUDED.pci_bus_id,"
            + " pci_device_id = EXCLUDED.pci_device_id, product = EXCLUDED.product,"
            + " memory_mib = EXCLUDED.memory_mib, mig_capable = EXCLUDED.mig_capable,"
            + " mig_mode = EXCLUDED.mig_mode, mig_mode_pending = EXCLUDED.mig_mode_pending,"
            + " vfs_total = EXCLUDED.vfs_total, vfs_enabled = EXCLUDED.vfs_enabled,"
            + " health = EXCLUDED.health, instances = EXCLUDED.instances";
    deleteGpus =
        "DELETE FROM "
            + s
            + "gpus AS g USING unnest($1::text[], $2::integer[]) AS d(node, gpu_index)"
            + " WHERE g.node = d.node AND g.gpu_index = d.gpu_index";
    insertHistory =
        "INSERT INTO "
            + s
            + "node_events (node, epoch, seq, event_id, event_type, event_time, payload)"
            + " SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[],"
            + " $5::text[], $6::timestamptz[], $7::text[])"
            + " ON CONFLICT (node, epoch, seq, event_time) DO NOTHING";
    // The history's registrations and inventories once more, as the columns the as-of reads use
    // (V42): a row each, the facts in the order of updateFacts, then the event's key and time.
    insertRegistration =
        "INSERT INTO "
            + s
            + "registration_history (node, host_kind, os_id, os_version, kernel, read_only_root,"
            + " systemd, driver_root, device_root, driver_provider, driver_version, zone, labels,"
            + " reasons, epoch, seq, event_time, state_from) VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
            + " $9, $10, $11, $12, $13::jsonb, $14::jsonb, $15, $16, $17, $18)"
            + " ON CONFLICT (node, epoch, seq) DO NOTHING";
    // The GPUs' and instances' columns as InventoryRows gives them (the node arrays left out),
    // then the GPUs counted by model, MIG mode and health, for the summary.
    insertInventory =
        "INSERT INTO "
            + s
            + "inventory_history (node, epoch, seq, event_time, gpu_index, uuid, pci_bus_id,"
            + " pci_device_id, product, memory_mib, mig_capable, mig_mode, mig_mode_pending,"
            + " vfs_total, vfs_enabled, health, instance_gpu, profile, placement_start,"
            + " placement_size, count_device, count_product, count_mig_mode, count_health,"
            + " count_gpus, state_from) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,"
            + " $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26)"
            + " ON CONFLICT (node, epoch, seq) DO NOTHING";
    lowerRegistrationStates = lowerStateFrom(s + "registration_history");
    lowerInventoryStates = lowerStateFrom(s + "inventory_history");
    selectReconciles = "SELECT * FROM " + s + "node_reconcile WHERE node = ANY($1::text[])";
    selectSteps = "SELECT * FROM " + s + "reconcile_steps WHERE node = ANY($1::text[])";
    upsertReconcile =
        "INSERT INTO "
            + s
            + "node_reconcile (node, accepted_generation, applied_generation, gate,"
            + " gate_generation, gate_reason, boot_id, boot_pending, failure_generation,"
            + " failure_step, failure_gpu, failure_reason, failure_holder, rejection_generation,"
            + " rejection_code, rejection_reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,"
            + " $11, $12, $13, $14, $15, $16) ON CONFLICT (node) DO UPDATE SET"
            + " accepted_generation = EXCLUDED.accepted_generation,"
            + " applied_generation = EXCLUDED.applied_generation, gate = EXCLUDED.gate,"
            + " gate_generation = EXCLUDED.gate_generation, gate_reason = EXCLUDED.gate_reason,"
            + " boot_id = EXCLUDED.boot_id, boot_pending = EXCLUDED.boot_pending,"
            + " failure_generation = EXCLUDED.failure_generation,"
            + " failure_step = EXCLUDED.failure_step, failure_gpu = EXCLUDED.failure_gpu,"
            + " failure_reason = EXCLUDED.failure_reason,"
            + " failure_holder = EXCLUDED.failure_holder,"
            + " rejection_generation = EXCLUDED.rejection_generation,"
            + " rejection_code = EXCLUDED.rejection_code,"
            + " rejection_reason = EXCLUDED.rejection_reason";
    deleteSteps = "DELETE FROM " + s + "reconcile_steps WHERE node = ANY($1::text[])";
    insertStep =
        "INSERT INTO "
            + s
            + "reconcile_steps (node, generation, ordinal, kind, gpu, detail, deadline_ms, state,"
            + " reason, holder, elapsed_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";
    provenance = new ProvenanceRows(this);
  }

  /** Inserts into the schema's gpus every row of {@code source} (whose rows are named r). */
  private static String insertGpus(String s, String source) {
    return "INSERT INTO "
        + s
        + "gpus (node, gpu_index, uuid, pci_bus_id, pci_device_id, product, memory_mib,"
        + " mig_capable, mig_mode, mig_mode_pending, vfs_total, vfs_enabled, health, instances)"
        + " SELECT r.node, r.gpu_index, r.uuid, r.pci_bus_id, r.pci_device_id, r.product,"
        + " r.memory_mib, r.mig_capable, r.mig_mode, r.mig_mode_pending, r.vfs_total,"
        + " r.vfs_enabled, r.health, r.instances::jsonb FROM "
        + source;
  }

  /**
   * Lowers the state_from (V43) of rows stored before a batch's rows of a node to the least time of
   * those, where it was later: the arrays of {@link StateFrom#lowering()}. Almost always no row:
   * one index probe a node.
   */
  private static String lowerStateFrom(String table) {
    return "UPDATE "
        + table
        + " t SET state_from = b.state_from FROM unnest($1::text[], $2::bigint[], $3::bigint[],"
        + " $4::timestamptz[]) AS b (node, epoch, seq, state_from) WHERE t.node = b.node"
        + " AND t.state_from > b.state_from AND (t.epoch, t.seq) < (b.epoch, b.seq)";
  }

  public String schema() {
    return schema;
  }

  public String table(String name) {
    return schema + "." + name;
  }
}
