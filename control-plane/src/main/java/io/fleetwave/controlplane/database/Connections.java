package io.fleetwave.controlplane.database;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * A connection of the pool checked out for one unit of work, with an exception handler. The server
 * can end a connection while it is checked out (PostgreSQL stopping: FATAL 57P01, "terminating
 * connection due to administrator command"), and says so outside any statement; a checked-out
 * connection without a handler has the Vert.x SQL client print that exception to stderr
 * (SqlConnectionBase.handleException), a bare line in a console the Deployment reads as one JSON
 * object a line. The work's statements fail as they would and are reported where they are handled
 * (the projection's and the engine's outage lines); the handler adds a debug line only.
 */
public final class Connections {
  private static final Logger LOG = Logger.getLogger(Connections.class);

  private Connections() {}

  /**
   * As {@link Pool#withTransaction} (BEGIN, the work, COMMIT; ROLLBACK where the work fails), the
   * connection handled from its checkout on: the pool's own withTransaction hands it over only once
   * BEGIN is answered, and a server stopping meanwhile ends it with no handler set.
   */
  public static <T> Uni<T> withTransaction(Pool pool, Function<SqlConnection, Uni<T>> work) {
    return withConnection(
        pool,
        connection ->
            connection
                .begin()
                .flatMap(
                    transaction ->
                        Uni.createFrom()
                            .deferred(() -> work.apply(connection))
                            .onFailure()
                            .call(failed -> transaction.rollback().onFailure().recoverWithNull())
                            .call(transaction::commit)));
  }

  /** {@link Pool#withConnection}, the connection handled as above. */
  public static <T> Uni<T> withConnection(Pool pool, Function<SqlConnection, Uni<T>> work) {
    return pool.withConnection(connection -> work.apply(handled(connection)));
  }

  private static SqlConnection handled(SqlConnection connection) {
    return connection.exceptionHandler(
        ended -> LOG.debugf("a database connection in use ended: %s", ended));
  }
}
