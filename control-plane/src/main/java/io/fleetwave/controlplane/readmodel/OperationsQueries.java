package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.database.Rows;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * What operators alert on, read from the {@code reports} views the Grafana dashboards use (one
 * definition of "converged", "paused by a threshold" and "overdue" for both).
 */
@ApplicationScoped
public class OperationsQueries {
  private final Pool pool;

  public OperationsQueries(Pool pool) {
    this.pool = pool;
  }

  /**
   * @param notConverged nodes not at their desired spec or driver
   * @param silent nodes with no event for longer than the bound asked for
   * @param newestEventAgeSeconds how old the newest projected event is (the projection's staleness
   *     while nodes heartbeat); 0 with no node
   */
  public record FleetHealth(long notConverged, long silent, double newestEventAgeSeconds) {}

  /** A rollout that is not finished, with its node counts. */
  public record ActiveRollout(
      UUID id,
      String name,
      String state,
      int currentWave,
      long pending,
      long inFlight,
      long succeeded,
      long failed,
      String pausedBy,
      long overdue) {}

  public Uni<FleetHealth> fleetHealth(Duration silentAfter) {
    return pool.preparedQuery(
            "SELECT count(*) FILTER (WHERE NOT converged OR driver_drift) AS not_converged,"
                + " count(*) FILTER (WHERE last_seen < now() - make_interval(secs => $1)) AS silent,"
                + " coalesce(extract(epoch FROM now() - max(last_seen)), 0)::float8 AS age"
                + " FROM reports.node_inventory")
        .execute(Tuple.of((double) silentAfter.toMillis() / 1000))
        .map(
            rows -> {
              Row row = rows.iterator().next();
              return new FleetHealth(
                  row.getLong("not_converged"),
                  row.getLong("silent"),
                  Math.max(0, row.getDouble("age")));
            });
  }

  public Uni<List<ActiveRollout>> activeRollouts() {
    return pool.query(
            "SELECT id, name, state, current_wave, pending, in_flight, succeeded, failed,"
                + " paused_by, overdue FROM reports.rollout_progress"
                + " WHERE state IN ('created', 'running', 'paused', 'rolling-back')")
        .execute()
        .map(
            rows ->
                Rows.each(
                    rows,
                    row ->
                        new ActiveRollout(
                            row.getUUID("id"),
                            row.getString("name"),
                            row.getString("state"),
                            row.getInteger("current_wave"),
                            row.getLong("pending"),
                            row.getLong("in_flight"),
                            row.getLong("succeeded"),
                            row.getLong("failed"),
                            row.getString("paused_by"),
                            row.getLong("overdue"))));
  }
}
