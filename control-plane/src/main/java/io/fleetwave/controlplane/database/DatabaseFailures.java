package io.fleetwave.controlplane.database;

import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * What a failed PostgreSQL call means for its caller. Two kinds matter:
 *
 * <ul>
 *   <li>a <b>refusal</b>: the server ran the statement and refused the data it was given. Sending
 *       the same data again fails the same way, whenever and however often it is sent. These are
 *       the SQLSTATE classes in {@link #DATA_CLASSES};
 *   <li>everything else: the work did not run (no connection, connection cut, server shutting down
 *       or starting up, too many connections, serialization failure or deadlock, a timeout, a
 *       schema that is not there yet). The same work may succeed later.
 * </ul>
 *
 * {@link #unavailable} narrows the second kind to "the database cannot be reached now", which the
 * API answers with 503.
 */
public final class DatabaseFailures {
  /**
   * SQLSTATE classes of refused data: {@code 22} data exception (22021 a NUL byte or invalid UTF-8
   * in text, 22P05 a NUL escape in JSON, 22001 too long, 22003/22008 out of range), {@code 23}
   * integrity constraint violation (23505 unique, 23503 foreign key, 23502 not null, 23514 check),
   * {@code 54} program limit exceeded (54000: an index row or a value too large).
   */
  public static final Set<String> DATA_CLASSES = Set.of("22", "23", "54");

  /**
   * Classes that say the server cannot serve at all: {@code 08} connection exception, {@code 57}
   * operator intervention (57P01 shutdown, 57P03 cannot connect now), {@code 53} insufficient
   * resources (53300 too many connections, 53100 disk full).
   */
  private static final Set<String> UNAVAILABLE_CLASSES = Set.of("08", "57", "53");

  /**
   * What the SQL client answers a query sent on a connection it has closed (the database went away
   * under it): a message without a type of its own (Vert.x's NoStackTraceThrowable).
   */
  private static final String CONNECTION_NOT_ACTIVE = "Connection is not active now";

  private static final int MAX_CAUSES = 16;

  private DatabaseFailures() {}

  /** The server's refusal of the data, when that is what {@code failure} is (or wraps). */
  public static Optional<PgException> refusal(Throwable failure) {
    return pgException(failure)
        .filter(e -> DATA_CLASSES.contains(sqlClass(e)) && !routedBeforeAnAttach(e));
  }

  /**
   * A row routed to a partition (the history's default one) by a partition map that a concurrent
   * ATTACH PARTITION has changed since: PostgreSQL then finds the row outside the partition it was
   * routed to and raises 23514 "violates partition constraint", which names no constraint (a CHECK
   * violation names its own). Attaching takes only a SHARE UPDATE EXCLUSIVE lock, so the history's
   * maintenance creating a day partition can race a projection batch; the same batch succeeds once
   * it is tried again with the new map. Seen at a control plane's start, which creates partitions
   * while the first batches arrive: it had dead-lettered a node's registration.
   */
  static boolean routedBeforeAnAttach(PgException e) {
    return "23514".equals(e.getSqlState()) && e.getConstraint() == null;
  }

  /** Whether {@code failure} means PostgreSQL cannot be reached or cannot serve now. */
  public static boolean unavailable(Throwable failure) {
    Throwable cause = failure;
    for (int depth = 0; cause != null && depth < MAX_CAUSES; depth++) {
      if (cause instanceof IOException
          || cause instanceof ClosedConnectionException
          || cause instanceof TimeoutException
          || cause instanceof io.smallrye.mutiny.TimeoutException
          || (cause instanceof PgException pg && UNAVAILABLE_CLASSES.contains(sqlClass(pg)))
          || (cause.getMessage() != null && cause.getMessage().startsWith(CONNECTION_NOT_ACTIVE))) {
        return true;
      }
      cause = cause.getCause();
    }
    return false;
  }

  /**
   * A refusal in one line: SQLSTATE, the server's message and its detail (which names the key or
   * value), e.g. {@code SQLSTATE 23505: duplicate key value violates unique constraint "gpus_pkey"
   * (Key (node, gpu_index)=(n-1, 0) already exists.)}.
   */
  public static String describe(PgException refusal) {
    String detail = refusal.getDetail();
    return "SQLSTATE "
        + refusal.getSqlState()
        + ": "
        + refusal.getErrorMessage()
        + (detail == null || detail.isBlank() ? "" : " (" + detail + ")");
  }

  /**
   * Any failure in one line, for logs and health reasons: its type and message, and its cause's.
   */
  @SuppressWarnings("ReferenceEquality") // a throwable that is its own cause: the same object
  public static String summary(Throwable failure) {
    if (failure instanceof PgException pg) {
      return describe(pg);
    }
    String text = failure.getClass().getSimpleName() + ": " + failure.getMessage();
    Throwable cause = failure.getCause();
    if (cause != null && cause != failure && cause.getMessage() != null) {
      text += " (" + cause.getMessage() + ")";
    }
    return text;
  }

  private static Optional<PgException> pgException(Throwable failure) {
    Throwable cause = failure;
    for (int depth = 0; cause != null && depth < MAX_CAUSES; depth++) {
      if (cause instanceof PgException pg) {
        return Optional.of(pg);
      }
      cause = cause.getCause();
    }
    return Optional.empty();
  }

  private static String sqlClass(PgException e) {
    String state = e.getSqlState();
    return state == null || state.length() < 2 ? "" : state.substring(0, 2);
  }
}
