package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.projection.NodeHistory;
import io.fleetwave.core.projection.ReconcileState;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.EventTypes;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.payload.FleetEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

/**
 * The projection's node tables as they stood at a past moment, rebuilt from what it keeps of the
 * past: the node history ({@code node_events}: every applied event but heartbeats, with its payload
 * as the node sent it), what the partition maintenance kept of the days it dropped ({@code
 * node_history_base}, V35: each node's newest registration and inventory before the oldest day
 * kept, and its progress events), the history's registrations and inventories as the columns the
 * reads use ({@code registration_history} and {@code inventory_history}, V42: written with the
 * history rows; each node's newest before the oldest day kept stays when the days go; picked by
 * their state_from, V43, one index descent a node whatever the history's length) and the desired
 * specs' history ({@code desired_spec_history}).
 *
 * <p>{@link #with()} is a WITH clause whose common table expressions are named like the tables they
 * stand for ({@code nodes}, {@code gpus}, {@code gpu_instances}, {@code desired_specs}, {@code
 * revoked_nodes}) with the columns the reads use: a name in a WITH clause hides the table of that
 * name, so the current reads' SQL, filters included, runs over the past unchanged; the summary
 * counts GPUs from {@code gpu_counts} (each node's GPUs counted by model, MIG mode and health).
 * PostgreSQL inlines an expression used once (and {@code inventories}, marked NOT MATERIALIZED), so
 * a condition on the node name reaches the key of {@code nodes}, and a page picks the rows of its
 * own nodes only. The reconcile state is a fold (the pure {@link ReconcileState}), not SQL: {@link
 * #reconciles} folds the node's progress events up to the moment.
 *
 * <p>A node's state at the moment is what its events up to that moment (by their time, in the order
 * the projection applied them) made it. What the history cannot say: when the node was last seen,
 * as heartbeats are not history (V11): {@code last_seen} is the time of its newest applied event in
 * the history stamped up to the moment; and who was revoked then, as a re-admission deletes its
 * revocation: a node shows revoked when its current revocation is at or before the moment.
 */
final class AsOfTables {
  private static final String REGISTERED = NodeHistory.REGISTERED;
  private static final String INVENTORY = NodeHistory.INVENTORY;

  /**
   * The node history with what the partition maintenance kept of the days it dropped
   * (node_history_base, V35): each node's state before the oldest day kept, then its changes.
   */
  private static final String HISTORY =
      "(SELECT node, epoch, seq, event_type, event_time, payload FROM node_events UNION ALL"
          + " SELECT node, epoch, seq, event_type, event_time, payload FROM node_history_base)";

  private final Instant moment;

  AsOfTables(Instant moment) {
    this.moment = moment;
  }

  Instant moment() {
    return moment;
  }

  /** The WITH clause (ending in a space) that the reads' SQL follows. */
  String with() {
    String at = "'" + moment + "'::timestamptz";
    // A node of the fleet (every node the history holds is in nodes) as of the moment, if it had
    // registered by then or has any event in the history up to it (as the projection counts a node
    // from its first event), with its registration then.
    return "WITH nodes AS (SELECT c.name, r.host_kind, r.os_id, r.os_version, r.kernel,"
        + " r.read_only_root, r.systemd, r.driver_root, r.device_root, r.driver_provider,"
        + " r.driver_version, r.zone, r.labels, r.reasons,"
        // As the projection's last_seen is the time of the node's newest applied event: a probe
        // of each history partition up to the moment, made for the rows a read returns only.
        + " (SELECT h.event_time FROM "
        + HISTORY
        + " h WHERE h.node = c.name AND h.event_time <= "
        + at
        + " ORDER BY h.epoch DESC, h.seq DESC LIMIT 1) AS last_seen"
        + " FROM public.nodes c LEFT JOIN LATERAL ("
        + pick(
            "registration_history",
            "host_kind, os_id, os_version, kernel, read_only_root, systemd, driver_root,"
                + " device_root, driver_provider, driver_version, zone, labels, reasons",
            at)
        + ") r ON true WHERE r.labels IS NOT NULL OR (SELECT true FROM "
        + HISTORY
        + " h WHERE h.node = c.name AND h.event_time <= "
        + at
        + " LIMIT 1)),"
        // Inlined where used (NOT MATERIALIZED): a page's condition on the node reaches nodes'
        // key, and only the page's inventories are picked and fetched.
        + " inventories AS NOT MATERIALIZED (SELECT c.name AS node, t.gpu_index, t.uuid,"
        + " t.pci_bus_id, t.pci_device_id, t.product, t.memory_mib, t.mig_capable, t.mig_mode,"
        + " t.mig_mode_pending, t.vfs_total, t.vfs_enabled, t.health, t.instance_gpu, t.profile,"
        + " t.placement_start, t.placement_size FROM public.nodes c CROSS JOIN LATERAL ("
        + pick("inventory_history", "epoch, seq", at)
        + ") k JOIN inventory_history t ON t.node = c.name AND t.epoch = k.epoch"
        + " AND t.seq = k.seq),"
        + " gpus AS (SELECT i.node, g.* FROM inventories i CROSS JOIN LATERAL unnest(i.gpu_index,"
        + " i.uuid, i.pci_bus_id, i.pci_device_id, i.product, i.memory_mib, i.mig_capable,"
        + " i.mig_mode, i.mig_mode_pending, i.vfs_total, i.vfs_enabled, i.health) AS g (gpu_index,"
        + " uuid, pci_bus_id, pci_device_id, product, memory_mib, mig_capable, mig_mode,"
        + " mig_mode_pending, vfs_total, vfs_enabled, health)),"
        + " gpu_instances AS (SELECT i.node, x.* FROM inventories i CROSS JOIN LATERAL"
        + " unnest(i.instance_gpu, i.profile, i.placement_start, i.placement_size)"
        + " AS x (gpu_index, profile, placement_start, placement_size)),"
        // The counts from the pick's index alone, no row fetched (V43).
        + " gpu_counts AS (SELECT c.name AS node, x.* FROM public.nodes c CROSS JOIN LATERAL ("
        + pick(
            "inventory_history",
            "count_device, count_product, count_mig_mode, count_health, count_gpus",
            at)
        + ") i CROSS JOIN LATERAL"
        + " unnest(i.count_device, i.count_product, i.count_mig_mode, i.count_health, i.count_gpus)"
        + " AS x (pci_device_id, product, mig_mode, health, gpus)),"
        + " desired_specs AS (SELECT DISTINCT ON (node) node, generation, spec,"
        + " set_at AS updated_at FROM desired_spec_history WHERE set_at <= "
        + at
        + " ORDER BY node, generation DESC),"
        + " revoked_nodes AS (SELECT * FROM public.revoked_nodes WHERE revoked_at <= "
        + at
        + ") ";
  }

  /**
   * The reconcile state of each of {@code names} (an array parameter) at the moment; a node with no
   * progress event up to it has none, as it has no node_reconcile row.
   */
  Uni<Map<String, ReconcileState>> reconciles(SqlClient client, Tuple names) {
    return client
        .preparedQuery(
            "SELECT node, event_type, payload FROM "
                + HISTORY
                + " h WHERE node = ANY($3)"
                + " AND event_time <= $1 AND event_type <> ALL($2) ORDER BY node, epoch, seq")
        .execute(progress().addValue(names.getValue(0)))
        .map(AsOfTables::fold);
  }

  /** The reconcile state of every node that has one at the moment. */
  Uni<Map<String, ReconcileState>> reconciles(SqlClient client) {
    return client
        .preparedQuery(
            "SELECT node, event_type, payload FROM "
                + HISTORY
                + " h"
                + " WHERE event_time <= $1 AND event_type <> ALL($2) ORDER BY node, epoch, seq")
        .execute(progress())
        .map(AsOfTables::fold);
  }

  /**
   * The parameters that pick the events a reconcile state may be folded from up to the moment: all
   * but registrations and inventories (the large ones), which never concern it.
   */
  private Tuple progress() {
    return Tuple.tuple()
        .addOffsetDateTime(moment.atOffset(ZoneOffset.UTC))
        .addArrayOfString(new String[] {REGISTERED, INVENTORY});
  }

  /** Each node's progress events folded in the applied order, from no reconcile state. */
  private static Map<String, ReconcileState> fold(RowSet<Row> rows) {
    Map<String, ReconcileState> states = new HashMap<>();
    for (Row row : rows) {
      NodeEvent event = decode(row);
      if (ReconcileState.concerns(event)) {
        states.merge(
            row.getString("node"),
            ReconcileState.NONE.apply(event),
            (state, ignored) -> state.apply(event));
      }
    }
    return states;
  }

  /**
   * The {@code columns} of node {@code c.name}'s row of {@code table} (registration_history or
   * inventory_history) as of {@code at}: its newest in the applied order among those stamped up to
   * then, the first entry of one descent of the state_from index (V43 says why).
   */
  private static String pick(String table, String columns, String at) {
    return "SELECT "
        + columns
        + " FROM "
        + table
        + " p WHERE p.node = c.name AND p.state_from <= "
        + at
        + " ORDER BY p.state_from DESC, p.epoch DESC, p.seq DESC LIMIT 1";
  }

  /** A stored payload as its event (stored as the node sent it, decoded before it was stored). */
  private static NodeEvent decode(Row row) {
    String type = row.getString("event_type");
    try {
      FleetEvent event =
          EventCodec.mapper()
              .readValue(row.getString("payload"), EventTypes.resolve(type).payload());
      return (NodeEvent) event;
    } catch (EventRejectedException | IOException e) {
      throw new IllegalStateException(
          "a stored " + type + " of node " + row.getString("node") + " does not decode", e);
    }
  }
}
