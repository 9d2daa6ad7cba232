package io.fleetwave.controlplane.database;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * A transaction whose statements go to PostgreSQL together, not one round trip each.
 *
 * <p>Why not {@code Pool.withTransaction}: the Vert.x 4 client sends a transaction's statements one
 * at a time, each only once the one before it has answered, so a transaction of n statements costs
 * n + 2 round trips (BEGIN and COMMIT included), whatever the caller sends at once; on the loaded
 * 2-core build machine a round trip cost 3-4 ms, and the projection's batch of 9 statements about
 * 25 ms. Without a transaction object the client pipelines a connection's commands and PostgreSQL
 * runs them in the order sent: here BEGIN goes out with the first step's statements and {@link
 * #commit()} with the last step's.
 *
 * <p>Failure: a statement that fails aborts the transaction in PostgreSQL, the statements after it
 * fail without effect, and a COMMIT already sent rolls back; the work's result fails with the first
 * failure, and ROLLBACK is sent before the connection goes back to the pool (a warning only when
 * COMMIT already ended the transaction). Work that completes without calling {@link #commit()} is
 * rolled back and fails.
 */
public final class PipelinedTransaction {
  private final SqlConnection connection;
  private final AtomicBoolean committed = new AtomicBoolean();

  private PipelinedTransaction(SqlConnection connection) {
    this.connection = connection;
  }

  /**
   * Runs {@code work} in a transaction on a connection of {@code pool}: BEGIN is sent ahead of the
   * statements {@code work} sends first, and {@code work}'s result must include {@link #commit()}.
   */
  public static <T> Uni<T> run(Pool pool, Function<PipelinedTransaction, Uni<T>> work) {
    return run(pool, "BEGIN", work);
  }

  /**
   * Runs reads in one snapshot (REPEATABLE READ, READ ONLY): reads that {@code work} sends together
   * with its {@link #commit()} cost one round trip and see the rows as of one moment.
   */
  public static <T> Uni<T> readSnapshot(Pool pool, Function<PipelinedTransaction, Uni<T>> work) {
    return run(pool, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", work);
  }

  /** One read of {@link #readTogether}: a statement and its parameters. */
  public record Read(String sql, Tuple parameters) {}

  /**
   * Sends {@code reads} and COMMIT together in one snapshot ({@link #readSnapshot}): one round
   * trip, and the rows of every read as of one moment. Their row sets, in the order of {@code
   * reads}.
   */
  public static Uni<List<RowSet<Row>>> readTogether(Pool pool, Read... reads) {
    return readSnapshot(
        pool,
        transaction -> {
          List<Uni<?>> sent = new ArrayList<>();
          for (Read read : reads) {
            sent.add(transaction.connection().preparedQuery(read.sql()).execute(read.parameters()));
          }
          // Subscribed in this order, so COMMIT goes out after every read.
          sent.add(transaction.commit());
          return Uni.combine()
              .all()
              .unis(sent)
              .with(
                  results -> {
                    List<RowSet<Row>> rows = new ArrayList<>();
                    for (int i = 0; i < reads.length; i++) {
                      rows.add(rowSet(results.get(i)));
                    }
                    return rows;
                  });
        });
  }

  @SuppressWarnings("unchecked") // each result but COMMIT's is a read's RowSet<Row>
  private static RowSet<Row> rowSet(Object result) {
    return (RowSet<Row>) result;
  }

  private static <T> Uni<T> run(
      Pool pool, String begin, Function<PipelinedTransaction, Uni<T>> work) {
    return Connections.withConnection(
        pool,
        connection -> {
          PipelinedTransaction transaction = new PipelinedTransaction(connection);
          // Subscribed in this order, so BEGIN is scheduled on the connection before the work's
          // first statements.
          return Uni.combine()
              .all()
              .unis(
                  connection.query(begin).execute(),
                  Uni.createFrom().deferred(() -> work.apply(transaction)))
              .with((begun, result) -> result)
              .invoke(transaction::requireCommitted)
              .onFailure()
              .call(transaction::rollback);
        });
  }

  /** The transaction's connection: statements sent on it are pipelined in the order sent. */
  public SqlConnection connection() {
    return connection;
  }

  /** COMMIT, sent when subscribed: after every statement sent before it. */
  public Uni<Void> commit() {
    return Uni.createFrom()
        .deferred(
            () -> {
              committed.set(true);
              return connection.query("COMMIT").execute().replaceWithVoid();
            });
  }

  private void requireCommitted(Object result) {
    if (!committed.get()) {
      throw new IllegalStateException("a pipelined transaction's work ended without COMMIT");
    }
  }

  private Uni<Void> rollback() {
    // A connection that is gone takes its transaction with it: nothing to report then.
    return connection.query("ROLLBACK").execute().replaceWithVoid().onFailure().recoverWithNull();
  }
}
