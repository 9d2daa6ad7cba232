package io.fleetwave.controlplane.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/** Measures how fast the control plane folds the published backlog into the projection. */
final class ProjectionRate {
  private static final Duration BOUND = Duration.ofMinutes(20);

  private ProjectionRate() {}

  /**
   * Events applied so far. Each node's events are one epoch numbered from 0 and applied in order,
   * so the sum of (last_seq + 1) counts them without scanning the history table.
   */
  private static long applied(Connection db) throws SQLException {
    try (Statement s = db.createStatement();
        ResultSet rs = s.executeQuery("SELECT coalesce(sum(last_seq + 1), 0) FROM nodes")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Events per second after the first sample, and the seconds that took. */
  record Result(double eventsPerSecond, double seconds) {}

  static Result measure(Connection db, ProjectionBench.BenchSettings settings)
      throws SQLException, InterruptedException {
    long total = settings.totalEvents();
    long deadline = System.nanoTime() + BOUND.toNanos();
    long firstSeen = -1;
    long appliedAtFirst = 0;
    long applied = 0;
    while (applied < total) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "projection applied %,d of %,d events within %s".formatted(applied, total, BOUND));
      }
      // The sampling interval of a bounded wait. Each sample sums over every node row, on the
      // database it measures: at 50 ms (until 2026-12-01) the samples took 7 % of PostgreSQL's
      // time in the backlog (pg_stat_statements). 200 ms ends the measure at most 0.2 s late, in
      // a backlog of about a minute.
      Thread.sleep(200);
      applied = applied(db);
      if (firstSeen < 0 && applied > 0) {
        firstSeen = System.nanoTime();
        appliedAtFirst = applied;
      }
    }
    double seconds = (System.nanoTime() - firstSeen) / 1e9;
    System.out.printf(
        "projected %,d events in %.1f s (after the first %,d)%n",
        total - appliedAtFirst, seconds, appliedAtFirst);
    return new Result((total - appliedAtFirst) / seconds, seconds);
  }
}
