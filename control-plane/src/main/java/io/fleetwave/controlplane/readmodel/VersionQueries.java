package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.database.Rows;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * The fleet's version distribution (driver, OS, MIG layout per zone and pool) from the reports view
 * Grafana reads too, so the dashboard and the Grafana panels count the same way.
 */
@ApplicationScoped
public class VersionQueries {
  /**
   * Bound on the rows one answer carries: a row is a distinct (zone, pool, driver, OS, layout), a
   * few hundred even in a large mixed fleet; a fleet past it is cut, and says so.
   */
  public static final int MAX_ROWS = 2000;

  private final Pool pool;

  public VersionQueries(Pool pool) {
    this.pool = pool;
  }

  /** The rows of {@code zone} and {@code pool} (null: every one), largest drift first. */
  public Uni<List<VersionDistribution>> distribution(String zone, String pool) {
    return this.pool
        .preparedQuery(
            "SELECT * FROM reports.version_distribution"
                + " WHERE ($1::text IS NULL OR zone = $1) AND ($2::text IS NULL OR pool = $2)"
                + " ORDER BY zone, pool, drifted DESC, nodes DESC, driver_version, os, mig_layout"
                + " LIMIT "
                + MAX_ROWS)
        .execute(Tuple.of(zone, pool))
        .map(VersionQueries::distribution);
  }

  /** The rows of a query over the columns of {@code reports.version_distribution}. */
  static List<VersionDistribution> distribution(RowSet<Row> rows) {
    return Rows.each(
        rows,
        row ->
            new VersionDistribution(
                row.getString("zone"),
                row.getString("pool"),
                row.getString("driver_version"),
                row.getString("os"),
                row.getString("mig_layout"),
                row.getLong("nodes"),
                row.getLong("drifted")));
  }
}
