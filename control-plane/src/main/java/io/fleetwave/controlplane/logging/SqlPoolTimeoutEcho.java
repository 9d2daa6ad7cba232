package io.fleetwave.controlplane.logging;

import io.quarkus.logging.LoggingFilter;
import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * Drops the one error line the Vert.x SQL client's pool logs for nothing: when a query cannot get a
 * connection (PostgreSQL away), the pool fails the query at once, and its connection-timeout timer,
 * which it does not cancel on that path, fails the same promise again when it fires; Vert.x then
 * logs "Unhandled exception: java.lang.IllegalStateException: Result is already complete" with a
 * stack trace, once per query, for as long as the outage lasts (an open bug of the client in the
 * version Quarkus 3.33 ships, eclipse-vertx/vertx-sql-client#1706). The query's caller already got
 * the real failure and says it once (the projection's "projection waiting for PostgreSQL"), so an
 * operator reading the log during an outage saw hundreds of stack traces that mean nothing.
 *
 * <p>Only that exception, thrown from the pool's timer, is dropped; every other line, that message
 * from anywhere else included, is logged as before.
 */
@LoggingFilter(name = SqlPoolTimeoutEcho.NAME)
public final class SqlPoolTimeoutEcho implements Filter {
  /** The name application.properties gives the console handler's filter. */
  public static final String NAME = "sql-pool-timeout-echo";

  private static final String POOL = "io.vertx.sqlclient.impl.pool.SqlConnectionPool";
  private static final String ALREADY_COMPLETE = "Result is already complete";

  @Override
  public boolean isLoggable(LogRecord record) {
    return !(record.getThrown() instanceof IllegalStateException thrown
        && ALREADY_COMPLETE.equals(thrown.getMessage())
        && thrownByThePoolsTimer(thrown.getStackTrace()));
  }

  /** Whether the pool is among the frames right under the promise that was failed twice. */
  private static boolean thrownByThePoolsTimer(StackTraceElement[] frames) {
    for (int i = 0; i < Math.min(frames.length, 3); i++) {
      if (frames[i].getClassName().equals(POOL)) {
        return true;
      }
    }
    return false;
  }
}
