package io.fleetwave.controlplane.projection;

import io.fleetwave.core.projection.HistoryPartitionPlan;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Row-by-row comparison of two projections, table by table, with EXCEPT ALL both ways. */
public final class ProjectionComparison {
  public static final int MAX_DIFFERENCES = 100;
  private static final String HISTORY = "node_events";
  private static final String NODES = "nodes";

  private ProjectionComparison() {}

  /**
   * The part of the node history both sides hold: events from {@code from} on (the live projection
   * has dropped what is older: {@link HistoryPartitionPlan#keptFrom}) that come after the position
   * of the node's snapshot the rebuild started from (those before it are in the live history only;
   * the snapshot holds their effect), read from {@code snapshotPositions} (node, epoch, seq).
   */
  public record HistoryWindow(Instant from, String snapshotPositions) {
    String predicate(String alias) {
      return alias
          + ".event_time >= '"
          + from
          + "' AND NOT EXISTS (SELECT 1 FROM "
          + snapshotPositions
          + " p WHERE p.node = "
          + alias
          + ".node AND ("
          + alias
          + ".epoch, "
          + alias
          + ".seq) <= (p.epoch, p.seq))";
    }
  }

  public static List<String> differences(
      Pool pool,
      ProjectionTables live,
      ProjectionTables rebuilt,
      HistoryWindow historyWindow,
      Duration timeout) {
    List<String> differences = new ArrayList<>();
    for (String table : ProjectionTables.TABLES) {
      differences.addAll(
          differences(
              pool,
              table,
              rows(live, table, historyWindow),
              rows(rebuilt, table, historyWindow),
              timeout));
    }
    return differences.size() > MAX_DIFFERENCES
        ? differences.subList(0, MAX_DIFFERENCES)
        : differences;
  }

  /**
   * The rows only one of two queries over a table returns (EXCEPT ALL both ways, at most {@link
   * #MAX_DIFFERENCES}), as "table: side row".
   */
  public static List<String> differences(
      Pool pool, String table, String liveRows, String rebuiltRows, Duration timeout) {
    return differences(pool, table, liveRows, rebuiltRows, Tuple.tuple(), MAX_DIFFERENCES, timeout);
  }

  /**
   * As {@link #differences(Pool, String, String, String, Duration)}, for queries that take
   * parameters ({@code $1} in both), at most {@code limit} rows.
   */
  public static List<String> differences(
      Pool pool,
      String table,
      String liveRows,
      String rebuiltRows,
      Tuple parameters,
      int limit,
      Duration timeout) {
    String sql =
        "(SELECT 'live-only' AS side, to_jsonb(x)::text AS row FROM ("
            + liveRows
            + " EXCEPT ALL "
            + rebuiltRows
            + ") x) UNION ALL (SELECT 'rebuild-only', to_jsonb(y)::text FROM ("
            + rebuiltRows
            + " EXCEPT ALL "
            + liveRows
            + ") y) LIMIT "
            + limit;
    List<String> differences = new ArrayList<>();
    pool.preparedQuery(sql)
        .execute(parameters)
        .await()
        .atMost(timeout)
        .forEach(
            row ->
                differences.add(table + ": " + row.getString("side") + " " + row.getString("row")));
    return differences;
  }

  /**
   * The rows of a table to compare: all of them, but only the window of the history, and the nodes
   * without their inventory digest: a write-skipping aid (V27), not projected state, which the live
   * projection lacks for nodes not inventoried since the migration while a rebuild has it.
   */
  private static String rows(ProjectionTables tables, String table, HistoryWindow window) {
    if (table.equals(NODES)) {
      return "SELECT to_jsonb(n) - 'inventory_digest' AS node FROM " + tables.table(table) + " n";
    }
    if (!table.equals(HISTORY) && ProjectionTables.HISTORIES.contains(table)) {
      // Like the events that revealed them or that they restate: the window both sides hold.
      return "SELECT * FROM " + tables.table(table) + " c WHERE " + window.predicate("c");
    }
    return table.equals(HISTORY)
        // Payloads as jsonb: stored as received, or in jsonb's own form before V25; equal JSON is
        // an equal row.
        ? "SELECT h.node, h.epoch, h.seq, h.event_id, h.event_type, h.event_time,"
            + " h.payload::jsonb AS payload FROM "
            + tables.table(table)
            + " h WHERE "
            + window.predicate("h")
        : "SELECT * FROM " + tables.table(table);
  }

  public static Map<String, Long> rowCounts(Pool pool, ProjectionTables tables, Duration timeout) {
    Map<String, Long> counts = new LinkedHashMap<>();
    for (String table : ProjectionTables.TABLES) {
      counts.put(table, rowCount(pool, tables.table(table), timeout));
    }
    return counts;
  }

  /** The rows of one table, named with its schema ({@code scratch.nodes}). */
  public static long rowCount(Pool pool, String qualifiedTable, Duration timeout) {
    return pool.query("SELECT count(*) AS c FROM " + qualifiedTable)
        .execute()
        .map(rows -> rows.iterator().next().getLong("c"))
        .await()
        .atMost(timeout);
  }

  public static Uni<Void> recreate(Pool pool, ProjectionTables scratch) {
    StringBuilder sql = new StringBuilder();
    sql.append("DROP SCHEMA IF EXISTS ").append(scratch.schema()).append(" CASCADE;");
    sql.append("CREATE SCHEMA ").append(scratch.schema()).append(';');
    // The fact tables too: the rebuild folds fleet.control-facts into them (ControlFactRebuild).
    for (String table :
        Stream.concat(ProjectionTables.TABLES.stream(), ControlFacts.TABLES.keySet().stream())
            .toList()) {
      sql.append("CREATE TABLE ")
          .append(scratch.table(table))
          .append(" (LIKE ")
          .append(ProjectionTables.LIVE.table(table))
          .append(" INCLUDING ALL);");
    }
    return pool.query(sql.toString()).execute().replaceWithVoid();
  }
}
