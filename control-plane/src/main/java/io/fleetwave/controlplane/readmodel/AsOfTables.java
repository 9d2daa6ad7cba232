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
 * kept, and its progress events) and the desired specs' history ({@code desired_spec_history}).
 *
 * <p>{@link #with()} is a WITH clause whose common table expressions are named like the tables they
 * stand for ({@code nodes}, {@code gpus}, {@code gpu_instances}, {@code desired_specs}, {@code
 * revoked_nodes}) with the columns the reads use: a name in a WITH clause hides the table of that
 * name, so the current reads' SQL, filters included, runs over the past unchanged. PostgreSQL
 * inlines an expression used once, so a condition on the node name reaches the history's index. The
 * reconcile state is a fold (the pure {@link ReconcileState}), not SQL: {@link #reconciles} folds
 * the node's progress events up to the moment.
 *
 * <p>A node's state at the moment is what its events up to that moment (by their time, in the order
 * the projection applied them) made it. What the history cannot say: when the node was last seen,
 * as heartbeats are not history (V11): {@code last_seen} is its newest event in the history up to
 * the moment; and who was revoked then, as a re-admission deletes its revocation: a node shows
 * revoked when its current revocation is at or before the moment.
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
    String newestInventory = newest(INVENTORY, at, "payload::jsonb -> 'gpus' AS list");
    return "WITH nodes AS (SELECT s.node AS name, r.p ->> 'hostKind' AS host_kind,"
        + " r.p ->> 'osId' AS os_id, r.p ->> 'osVersion' AS os_version, r.p ->> 'kernel' AS kernel,"
        + " (r.p ->> 'readOnlyRoot')::boolean AS read_only_root,"
        + " (r.p ->> 'systemd')::boolean AS systemd, r.p ->> 'driverRoot' AS driver_root,"
        + " r.p ->> 'deviceRoot' AS device_root, r.p ->> 'driverProvider' AS driver_provider,"
        + " r.p ->> 'driverVersion' AS driver_version, r.p ->> 'zone' AS zone,"
        + objectOrEmpty("r.p -> 'labels'")
        + " AS labels, "
        + objectOrEmpty("r.p -> 'reasons'")
        + " AS reasons, s.last_seen"
        + " FROM (SELECT node, max(event_time) AS last_seen FROM "
        + HISTORY
        + " h"
        + " WHERE event_time <= "
        + at
        + " GROUP BY node) s LEFT JOIN ("
        + newest(REGISTERED, at, "payload::jsonb AS p")
        + ") r ON r.node = s.node),"
        + " gpus AS (SELECT i.node, (g ->> 'index')::int AS gpu_index, g ->> 'uuid' AS uuid,"
        + " g ->> 'pciBusId' AS pci_bus_id, g ->> 'pciDeviceId' AS pci_device_id,"
        + " g ->> 'product' AS product, (g ->> 'memoryMiB')::bigint AS memory_mib,"
        + " (g ->> 'migCapable')::boolean AS mig_capable, g ->> 'migMode' AS mig_mode,"
        + " g ->> 'migModePending' AS mig_mode_pending,"
        + " coalesce((g ->> 'vfsTotal')::int, 0) AS vfs_total,"
        + " coalesce((g ->> 'vfsEnabled')::int, 0) AS vfs_enabled, g ->> 'health' AS health"
        + " FROM ("
        + newestInventory
        + ") i CROSS JOIN LATERAL jsonb_array_elements(i.list) g),"
        + " gpu_instances AS (SELECT i.node, (g ->> 'index')::int AS gpu_index,"
        + " x ->> 'profile' AS profile, (x ->> 'placementStart')::int AS placement_start,"
        + " (x ->> 'placementSize')::int AS placement_size FROM ("
        + newestInventory
        + ") i CROSS JOIN LATERAL jsonb_array_elements(i.list) g"
        + " CROSS JOIN LATERAL jsonb_array_elements(CASE jsonb_typeof(g -> 'instances')"
        + " WHEN 'array' THEN g -> 'instances' ELSE '[]'::jsonb END) x),"
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

  /** The newest event of {@code type} of each node up to {@code at}, in the applied order. */
  private static String newest(String type, String at, String payload) {
    return "SELECT DISTINCT ON (node) node, "
        + payload
        + " FROM "
        + HISTORY
        + " h WHERE event_type = '"
        + type
        + "' AND event_time <= "
        + at
        + " ORDER BY node, epoch DESC, seq DESC";
  }

  /** A JSON object member, or {} where it is absent or null (as the registration reads it). */
  private static String objectOrEmpty(String member) {
    return "CASE jsonb_typeof("
        + member
        + ") WHEN 'object' THEN "
        + member
        + " ELSE '{}'::jsonb END";
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
