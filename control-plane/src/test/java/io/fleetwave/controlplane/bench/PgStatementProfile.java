package io.fleetwave.controlplane.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * {@code -Dbench.pgStatements=true}: where PostgreSQL's own time goes while the projection works
 * through its backlog, per statement, from the {@code pg_stat_statements} extension (preloaded at
 * the database's one restart). The session sampler says whether the database or the control plane
 * is the limit; this says which of the projection's statements the database spends it on, with the
 * WAL and the pages each one writes.
 */
final class PgStatementProfile {
  static final String LIBRARY = "pg_stat_statements";

  private static final String TOP =
      "SELECT calls, total_exec_time, rows, wal_bytes, shared_blks_dirtied,"
          + " total_exec_time / greatest(sum(total_exec_time) OVER (), 1) AS share,"
          + " regexp_replace(query, '\\s+', ' ', 'g') AS query"
          + " FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%'"
          + " ORDER BY total_exec_time DESC LIMIT 14";

  private PgStatementProfile() {}

  static boolean requested() {
    return Boolean.parseBoolean(System.getProperty("bench.pgStatements", "false"));
  }

  /** The settings it needs besides the preload, applied before the restart. */
  static List<String> settings() {
    return List.of(
        "ALTER SYSTEM SET pg_stat_statements.track = 'top'",
        "ALTER SYSTEM SET pg_stat_statements.track_utility = off");
  }

  /** Counts from now on: called when the backlog starts, after the control plane's migrations. */
  static void reset(Connection db) throws SQLException {
    try (Statement statement = db.createStatement()) {
      statement.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      statement.execute("SELECT pg_stat_statements_reset()");
    }
  }

  static String report(Connection db) throws SQLException {
    StringBuilder text = new StringBuilder();
    text.append(
        "  PostgreSQL time by statement during the backlog (pg_stat_statements, busiest first):\n");
    text.append(
        "    share   total ms      calls  ms/call        rows   WAL MB  dirtied  statement\n");
    try (Statement statement = db.createStatement();
        ResultSet rows = statement.executeQuery(TOP)) {
      while (rows.next()) {
        long calls = rows.getLong("calls");
        double total = rows.getDouble("total_exec_time");
        String query = rows.getString("query");
        text.append(
            "    %4.0f %% %10.0f %10d %8.2f %11d %8.1f %8d  %s%n"
                .formatted(
                    100 * rows.getDouble("share"),
                    total,
                    calls,
                    total / Math.max(calls, 1),
                    rows.getLong("rows"),
                    rows.getDouble("wal_bytes") / 1e6,
                    rows.getLong("shared_blks_dirtied"),
                    query.length() > 110 ? query.substring(0, 110) + "..." : query));
      }
    }
    return text.toString();
  }
}
