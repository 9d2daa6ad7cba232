package io.fleetwave.controlplane.fault;

import io.fleetwave.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The projected node histories (node_events) as the fault tests read them, over JDBC. */
record NodeHistories(EmbeddedPostgres postgres) {

  /** History rows per node whose name starts with {@code prefix}. */
  Map<String, Long> counts(String prefix) throws SQLException {
    Map<String, Long> counts = new LinkedHashMap<>();
    try (Connection connection = connect();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT node, count(*) FROM node_events WHERE node LIKE ? GROUP BY node"
                    + " ORDER BY node")) {
      statement.setString(1, prefix + "%");
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          counts.put(rows.getString(1), rows.getLong(2));
        }
      }
    }
    return counts;
  }

  /**
   * Per node and epoch of nodes starting with {@code prefix}, where the projected seqs are not 0..n
   * without a hole: "node epoch E: n rows, seqs first..last".
   */
  List<String> seqGaps(String prefix) throws SQLException {
    List<String> gaps = new ArrayList<>();
    try (Connection connection = connect();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT node, epoch, count(*), min(seq), max(seq) FROM node_events"
                    + " WHERE node LIKE ? GROUP BY node, epoch ORDER BY node, epoch")) {
      statement.setString(1, prefix + "%");
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          long count = rows.getLong(3);
          long first = rows.getLong(4);
          long last = rows.getLong(5);
          if (first != 0 || last != count - 1) {
            gaps.add(
                "%s epoch %d: %d rows, seqs %d..%d"
                    .formatted(rows.getString(1), rows.getLong(2), count, first, last));
          }
        }
      }
    }
    return gaps;
  }

  long lastSeq(String node) throws SQLException {
    try (Connection connection = connect();
        PreparedStatement statement =
            connection.prepareStatement("SELECT last_seq FROM nodes WHERE name = ?")) {
      statement.setString(1, node);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? rows.getLong(1) : -1;
      }
    } catch (SQLException notYet) {
      return -1; // Flyway has not created the table yet, or the database is away
    }
  }

  long count(String sql) throws SQLException {
    try (Connection connection = connect();
        ResultSet rows = connection.createStatement().executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(
        postgres.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD);
  }
}
