package io.fleetwave.controlplane.bench;

import io.fleetwave.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the control plane's PostgreSQL sessions are doing while the projection works through its
 * backlog: {@code pg_stat_activity} sampled every 10 ms for its sessions (the bench's own JDBC
 * sessions left out), counted by application name, state and wait event. "active" with no wait
 * event is PostgreSQL executing; "idle in transaction" is a transaction waiting for the control
 * plane's next statement (a round trip, or the control plane's own work between statements); "idle"
 * is no batch at all. It tells whether the projection waits on the database or the database on the
 * projection.
 *
 * <p>Opt-in ({@code -Dbench.pgWaits=true}): the sampling is itself load on the database measured
 * and on the same cores, so no headline figure is taken with it on.
 */
final class PgWaitSampler implements AutoCloseable {
  /** What the sampler costs the run it samples, printed with the settings when it is on. */
  static final String OVERHEAD =
      "one pg_stat_activity query every 10 ms on the database measured: about 100 queries/s and"
          + " one more backend on the same cores";

  private static final String SAMPLE =
      "SELECT application_name || ' ' || state AS state,"
          + " coalesce(wait_event_type || ':' || wait_event, '-') AS waiting"
          + " FROM pg_stat_activity WHERE backend_type = 'client backend'"
          + " AND pid <> pg_backend_pid() AND application_name NOT LIKE 'PostgreSQL JDBC%'";

  private final Map<String, Integer> counts = new TreeMap<>();
  private final Poller poller;
  private int samples;

  static boolean requested() {
    return Boolean.getBoolean("bench.pgWaits");
  }

  PgWaitSampler(EmbeddedPostgres postgres) {
    poller =
        new Poller(
            "bench-pg-waits",
            running -> {
              try (Connection db = FleetApiBench.connect(postgres);
                  Statement statement = db.createStatement()) {
                while (running.getAsBoolean()) {
                  sample(statement);
                  Thread.sleep(10); // the sampling period, not a wait on a condition
                }
              } catch (Exception e) {
                throw new IllegalStateException("sampling pg_stat_activity failed", e);
              }
            });
  }

  private synchronized void sample(Statement statement) throws java.sql.SQLException {
    samples++;
    try (ResultSet rows = statement.executeQuery(SAMPLE)) {
      while (rows.next()) {
        counts.merge(rows.getString("state") + " / " + rows.getString("waiting"), 1, Integer::sum);
      }
    }
  }

  /**
   * Per (session, state / wait event), busiest first: how many of the control plane's sessions were
   * in it on average (the pool holds several, so the figures add up to the pool's size).
   */
  synchronized String report() {
    StringBuilder text = new StringBuilder();
    text.append(
        ("  PostgreSQL sessions of the control plane during the backlog, on average (%,d samples,"
                + " 10 ms):%n")
            .formatted(samples));
    counts.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .limit(12)
        .forEach(
            e ->
                text.append(
                    "    %5.2f  %s%n".formatted((double) e.getValue() / samples, e.getKey())));
    return text.toString();
  }

  @Override
  public void close() {
    poller.close();
  }
}
