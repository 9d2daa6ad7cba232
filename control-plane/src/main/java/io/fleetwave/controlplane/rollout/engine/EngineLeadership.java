package io.fleetwave.controlplane.rollout.engine;

import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Duration;
import org.jboss.logging.Logger;

/**
 * One engine leader among the control-plane replicas: a PostgreSQL session advisory lock held on a
 * connection kept for it. The lock dies with the connection, so a crashed leader's lock is freed by
 * PostgreSQL; a leader that cannot reach its connection stops acting.
 */
final class EngineLeadership implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(EngineLeadership.class);
  private static final long LOCK_KEY = 0x466c656574776176L; // "Fleetwav"

  private final Pool pool;
  private final Duration timeout;
  private SqlConnection connection;

  EngineLeadership(Pool pool, Duration timeout) {
    this.pool = pool;
    this.timeout = timeout;
  }

  /** Whether this engine leads now; tries to become leader when it does not. */
  boolean lead() {
    if (connection != null) {
      try {
        connection.query("SELECT 1").execute().await().atMost(timeout);
        return true;
      } catch (RuntimeException e) {
        LOG.warnf("rollout engine lost its leader connection: %s", e.getMessage());
        close();
        return false;
      }
    }
    SqlConnection candidate = null;
    try {
      candidate = pool.getConnection().await().atMost(timeout);
      boolean locked =
          candidate
              .preparedQuery("SELECT pg_try_advisory_lock($1) AS locked")
              .execute(Tuple.of(LOCK_KEY))
              .await()
              .atMost(timeout)
              .iterator()
              .next()
              .getBoolean("locked");
      if (locked) {
        connection = candidate;
        return true;
      }
    } catch (RuntimeException e) {
      LOG.warnf("rollout engine could not try the leader lock: %s", e.getMessage());
    }
    if (candidate != null) {
      candidate.closeAndForget();
    }
    return false;
  }

  @Override
  public void close() {
    if (connection != null) {
      // A pooled connection outlives this engine: give the lock back before the pool reuses it.
      try {
        connection.query("SELECT pg_advisory_unlock_all()").execute().await().atMost(timeout);
      } catch (RuntimeException e) {
        LOG.warnf("could not release the rollout engine lock: %s", e.getMessage());
      }
      connection.closeAndForget();
      connection = null;
    }
  }
}
