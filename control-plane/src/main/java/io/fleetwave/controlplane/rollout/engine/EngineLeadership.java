package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.core.rollout.decide.RolloutFold;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import java.io.Serial;
import java.time.Duration;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * One engine leader among the control-plane replicas: a lease row in PostgreSQL ({@code
 * engine_leader}, migration V12) with a term, the fencing token every append carries.
 *
 * <p>A replica takes the lease once it has expired by the database's clock, which issues the next
 * term. The holder renews it every quarter of the lease, each attempt bounded by a quarter too, and
 * counts itself leader only until a quarter before the lease would expire as measured from when it
 * <em>sent</em> its last acknowledged renewal, on its own monotonic clock (the database expires it
 * later than that whatever the clocks read). So a leader whose connection dies silently stops
 * acting within three quarters of a lease after its last renewal, and another replica leads within
 * a lease and a poll (a quarter), without waiting for TCP to notice. A term lower than one already
 * in a rollout's log is ignored by the fold ({@link RolloutFold}), for appends that a stale leader
 * had in flight when it stopped.
 *
 * <p>The lease row is the only record of the terms issued, and it lives in the database, which is a
 * projection the log can rebuild: a database lost and migrated again starts issuing terms at 1
 * while the rollouts' logs hold higher ones, and the fold would ignore every append of the new
 * leader. So a leader raises its term above the highest one it folded at takeover ({@link
 * #raiseAbove}); terms still only grow and never repeat.
 */
final class EngineLeadership implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(EngineLeadership.class);
  private static final String ACQUIRE =
      "UPDATE engine_leader SET term = term + 1, holder = $1, renewed_at = now(),"
          + " expires_at = now() + make_interval(secs => $2)"
          + " WHERE expires_at <= now() OR holder = $1 RETURNING term";
  private static final String RENEW =
      "UPDATE engine_leader SET renewed_at = now(), expires_at = now() + make_interval(secs => $3)"
          + " WHERE holder = $1 AND term = $2";
  private static final String RAISE =
      "UPDATE engine_leader SET term = $3 WHERE holder = $1 AND term = $2 RETURNING term";
  private static final String RELEASE =
      "UPDATE engine_leader SET expires_at = '-infinity' WHERE holder = $1 AND term = $2";

  private final Pool pool;
  private final Duration lease;
  private final Duration quarter;
  private final String holder;
  private volatile long term;
  private volatile long validUntilNanos;
  private volatile boolean running;
  private Thread renewer;

  EngineLeadership(Pool pool, Duration lease) {
    this.pool = pool;
    this.lease = lease;
    this.quarter = lease.dividedBy(4);
    this.holder = host() + "/" + UUID.randomUUID();
  }

  /**
   * Starts taking and renewing the lease on a thread of its own, so a long round never lets it
   * lapse; {@code onLead} runs once each time this replica takes it.
   */
  void start(Runnable onLead) {
    running = true;
    renewer =
        Thread.ofPlatform()
            .name("rollout-engine-lease")
            .daemon()
            .start(
                () -> {
                  while (running) {
                    boolean held = term != 0 && renew();
                    if (term == 0 && acquire()) {
                      held = true;
                      onLead.run();
                    }
                    // After a failed renewal try again soon: two tries fit in the margin.
                    if (running) {
                      sleep(held || term == 0 ? quarter : quarter.dividedBy(8));
                    }
                  }
                });
  }

  /** The term this engine leads in now, or 0 when it does not lead (or no longer may act). */
  long term() {
    long current = term;
    return current != 0 && System.nanoTime() - validUntilNanos < 0 ? current : 0;
  }

  /** Throws {@link LeadershipLost} unless this engine still leads in {@code expected}. */
  void check(long expected) {
    long current = term();
    if (current != expected) {
      throw new LeadershipLost(
          current == 0
              ? "the leader lease of term "
                  + expected
                  + " was not renewed in time (lease "
                  + lease.toMillis()
                  + " ms)"
              : "the lease moved from term " + expected + " to " + current);
    }
  }

  /**
   * Makes this leader's term higher than {@code floor}, the highest term in the logs it took over,
   * and returns the term it leads in now (unchanged when already higher). Synchronized with the
   * renewals, which name the term they renew.
   *
   * @throws LeadershipLost when this replica no longer holds the lease
   */
  synchronized long raiseAbove(long floor) {
    long held = term;
    if (held == 0 || held > floor) {
      return held;
    }
    long raised = floor + 1;
    int changed =
        pool.preparedQuery(RAISE)
            .execute(Tuple.of(holder, held, raised))
            .await()
            .atMost(quarter)
            .rowCount();
    if (changed != 1) {
      term = 0;
      throw new LeadershipLost("the lease of term " + held + " was taken while raising its term");
    }
    term = raised;
    LOG.infof(
        "rollout engine raised its term from %d to %d: the rollouts' logs hold term %d (a database"
            + " that lost the lease's history)",
        held, raised, floor);
    return raised;
  }

  /** The lease's length, as configured. */
  Duration lease() {
    return lease;
  }

  private synchronized boolean acquire() {
    long sent = System.nanoTime();
    try {
      RowSet<Row> rows =
          pool.preparedQuery(ACQUIRE)
              .execute(Tuple.of(holder, seconds(lease)))
              .await()
              .atMost(quarter);
      if (rows.rowCount() == 1) {
        validUntilNanos = sent + lease.minus(quarter).toNanos();
        term = rows.iterator().next().getLong("term");
        LOG.infof("rollout engine took the leader lease: term %d (%s)", term, holder);
        return true;
      }
    } catch (RuntimeException e) {
      LOG.debugf("rollout engine could not try the leader lease: %s", e.getMessage());
    }
    return false;
  }

  private synchronized boolean renew() {
    long held = term;
    long sent = System.nanoTime();
    try {
      int renewed =
          pool.preparedQuery(RENEW)
              .execute(Tuple.of(holder, held, seconds(lease)))
              .await()
              .atMost(quarter)
              .rowCount();
      if (renewed == 1) {
        validUntilNanos = sent + lease.minus(quarter).toNanos();
        return true;
      }
      LOG.warnf("rollout engine lost the leader lease of term %d: another replica holds it", held);
      term = 0;
      return false;
    } catch (RuntimeException e) {
      if (System.nanoTime() - validUntilNanos >= 0) {
        LOG.warnf(
            "rollout engine stopped leading: the lease of term %d could not be renewed within %d"
                + " ms (%s)",
            held, lease.minus(quarter).toMillis(), e.getMessage());
        term = 0;
      }
      return false;
    }
  }

  private static double seconds(Duration duration) {
    return duration.toNanos() / 1e9;
  }

  private void sleep(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  private static String host() {
    String name = System.getenv("HOSTNAME");
    return name == null || name.isBlank() ? "control-plane" : name;
  }

  /** Stops renewing and gives the lease back so that another replica takes it at once. */
  @Override
  public void close() {
    running = false;
    Thread thread = renewer;
    if (thread != null) {
      thread.interrupt();
      try {
        thread.join(lease);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    long held = term;
    term = 0;
    if (held != 0) {
      try {
        pool.preparedQuery(RELEASE).execute(Tuple.of(holder, held)).await().atMost(quarter);
      } catch (RuntimeException e) {
        LOG.warnf("could not give the leader lease of term %d back: %s", held, e.getMessage());
      }
    }
  }

  /** This engine may no longer act: its lease lapsed or another replica holds it. */
  static final class LeadershipLost extends RuntimeException {
    @Serial private static final long serialVersionUID = 1L;

    LeadershipLost(String message) {
      super(message);
    }
  }
}
