package io.fleetwave.controlplane.projection;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Row-by-row comparison of two projections, table by table, with EXCEPT ALL both ways. */
final class ProjectionComparison {
  static final int MAX_DIFFERENCES = 100;
  private static final String HISTORY = "node_events";

  private ProjectionComparison() {}

  /**
   * @param historyFrom the node history is compared from this time on: the live projection has
   *     dropped what is older ({@link HistoryPartitionPlan#keptFrom})
   */
  static List<String> differences(
      Pool pool,
      ProjectionTables live,
      ProjectionTables rebuilt,
      Instant historyFrom,
      Duration timeout) {
    List<String> differences = new ArrayList<>();
    for (String table : ProjectionTables.TABLES) {
      String a = rows(live, table, historyFrom);
      String b = rows(rebuilt, table, historyFrom);
      String sql =
          "(SELECT 'live-only' AS side, to_jsonb(x)::text AS row FROM ("
              + a
              + " EXCEPT ALL "
              + b
              + ") x) UNION ALL (SELECT 'rebuild-only', to_jsonb(y)::text FROM ("
              + b
              + " EXCEPT ALL "
              + a
              + ") y) LIMIT "
              + MAX_DIFFERENCES;
      pool.query(sql)
          .execute()
          .await()
          .atMost(timeout)
          .forEach(
              row ->
                  differences.add(
                      table + ": " + row.getString("side") + " " + row.getString("row")));
    }
    return differences.size() > MAX_DIFFERENCES
        ? differences.subList(0, MAX_DIFFERENCES)
        : differences;
  }

  /** The rows of a table to compare: all of them, but only the retained part of the history. */
  private static String rows(ProjectionTables tables, String table, Instant historyFrom) {
    String all = "SELECT * FROM " + tables.table(table);
    return table.equals(HISTORY) ? all + " WHERE event_time >= '" + historyFrom + "'" : all;
  }

  static Map<String, Long> rowCounts(Pool pool, ProjectionTables tables, Duration timeout) {
    Map<String, Long> counts = new LinkedHashMap<>();
    for (String table : ProjectionTables.TABLES) {
      Long count =
          pool.query("SELECT count(*) AS c FROM " + tables.table(table))
              .execute()
              .map(rows -> rows.iterator().next().getLong("c"))
              .await()
              .atMost(timeout);
      counts.put(table, count);
    }
    return counts;
  }

  static Uni<Void> recreate(Pool pool, ProjectionTables scratch) {
    StringBuilder sql = new StringBuilder();
    sql.append("DROP SCHEMA IF EXISTS ").append(scratch.schema()).append(" CASCADE;");
    sql.append("CREATE SCHEMA ").append(scratch.schema()).append(';');
    for (String table : ProjectionTables.TABLES) {
      sql.append("CREATE TABLE ")
          .append(scratch.table(table))
          .append(" (LIKE ")
          .append(ProjectionTables.LIVE.table(table))
          .append(" INCLUDING ALL);");
    }
    return pool.query(sql.toString()).execute().replaceWithVoid();
  }
}
