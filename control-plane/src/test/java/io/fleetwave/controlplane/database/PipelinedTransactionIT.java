package io.fleetwave.controlplane.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.testsupport.services.PostgresExtension;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.PoolOptions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A pipelined transaction against a real PostgreSQL: what it sends together commits together or not
 * at all, a failure is the failing statement's own, and the pool's one connection is clean for the
 * next user whatever happened (not left inside an open or aborted transaction).
 */
@ExtendWith(PostgresExtension.class)
class PipelinedTransactionIT {
  private static final Duration BOUND = Duration.ofSeconds(30);

  EmbeddedPostgres postgres;
  private Vertx vertx;
  private Pool pool;

  @BeforeEach
  void connect() {
    vertx = Vertx.vertx();
    // One connection: whatever one transaction leaves behind, the next one gets.
    pool =
        Pool.newInstance(
            PgBuilder.pool()
                .with(new PoolOptions().setMaxSize(1))
                .connectingTo(
                    PgConnectOptions.fromUri(postgres.jdbcUrl().substring("jdbc:".length()))
                        .setUser(EmbeddedPostgres.USER)
                        .setPassword(EmbeddedPostgres.PASSWORD))
                .using(vertx.getDelegate())
                .build());
    run("DROP TABLE IF EXISTS pipelined");
    run("CREATE TABLE pipelined (id int PRIMARY KEY, txid bigint NOT NULL)");
  }

  @AfterEach
  void close() {
    pool.closeAndAwait();
    vertx.closeAndAwait();
  }

  @Test
  void statementsSentTogetherCommitInOneTransaction() {
    PipelinedTransaction.run(pool, tx -> insert(tx, List.of(1, 2, 3)).call(tx::commit))
        .await()
        .atMost(BOUND);

    assertThat(rows("SELECT count(DISTINCT txid) FROM pipelined")).isEqualTo(1);
    assertThat(rows("SELECT count(*) FROM pipelined")).isEqualTo(3);
  }

  @Test
  void aStatementThatFailsFailsTheWorkWithItsOwnErrorAndNothingIsWritten() {
    run("INSERT INTO pipelined VALUES (2, 0)");

    assertThatThrownBy(
            () ->
                PipelinedTransaction.run(
                        pool,
                        tx -> Uni.join().all(insertsThenCommit(tx, List.of(1, 2, 3))).andFailFast())
                    .await()
                    .atMost(BOUND))
        .isInstanceOf(PgException.class)
        .extracting(failure -> ((PgException) failure).getSqlState())
        .isEqualTo("23505");

    assertThat(rows("SELECT count(*) FROM pipelined")).isEqualTo(1);
    assertThat(openTransactionOnThePoolsConnection()).isFalse();
  }

  @Test
  void aFailureBeforeCommitIsRolledBackBeforeTheConnectionIsReused() {
    assertThatThrownBy(
            () ->
                PipelinedTransaction.run(
                        pool,
                        tx ->
                            insert(tx, List.of(1))
                                .chain(() -> tx.connection().query("SELECT 1/0").execute()))
                    .await()
                    .atMost(BOUND))
        .isInstanceOf(PgException.class);

    assertThat(openTransactionOnThePoolsConnection()).isFalse();
    assertThat(rows("SELECT count(*) FROM pipelined")).isZero();
  }

  @Test
  void workThatEndsWithoutCommitIsRolledBackAndFails() {
    assertThatThrownBy(
            () ->
                PipelinedTransaction.run(pool, tx -> insert(tx, List.of(1))).await().atMost(BOUND))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("without COMMIT");

    assertThat(openTransactionOnThePoolsConnection()).isFalse();
    assertThat(rows("SELECT count(*) FROM pipelined")).isZero();
  }

  @Test
  void aSnapshotReadSeesOneMomentAndWritesNothing() {
    run("INSERT INTO pipelined VALUES (1, 0)");

    long counted =
        PipelinedTransaction.readSnapshot(
                pool,
                tx ->
                    tx.connection()
                        .query("SELECT count(*) FROM pipelined")
                        .execute()
                        .map(rows -> rows.iterator().next().getLong(0))
                        // Another connection's commit after the snapshot began stays unseen.
                        .call(() -> insertElsewhere(2))
                        .chain(
                            first ->
                                tx.connection()
                                    .query("SELECT count(*) FROM pipelined")
                                    .execute()
                                    .map(rows -> rows.iterator().next().getLong(0) - first))
                        .call(tx::commit))
            .await()
            .atMost(BOUND);
    assertThat(counted).as("rows that appeared inside the snapshot").isZero();

    assertThatThrownBy(
            () ->
                PipelinedTransaction.readSnapshot(
                        pool, tx -> insert(tx, List.of(3)).call(tx::commit))
                    .await()
                    .atMost(BOUND))
        .isInstanceOf(PgException.class)
        .extracting(failure -> ((PgException) failure).getSqlState())
        .isEqualTo("25006");
    assertThat(openTransactionOnThePoolsConnection()).isFalse();
  }

  /** Commits a row on a connection of its own (the test's pool has only the one in use). */
  private Uni<Void> insertElsewhere(int id) {
    return Uni.createFrom()
        .item(
            () -> {
              try (Connection other =
                      DriverManager.getConnection(
                          postgres.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD);
                  Statement sql = other.createStatement()) {
                sql.execute("INSERT INTO pipelined VALUES (" + id + ", 0)");
                return null;
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            })
        .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
        .replaceWithVoid();
  }

  /** One INSERT per id, sent together; each stamps the transaction's id. */
  private static Uni<Void> insert(PipelinedTransaction tx, List<Integer> ids) {
    return Uni.join().all(inserts(tx, ids)).andFailFast().replaceWithVoid();
  }

  /** The INSERTs of these ids and then COMMIT, sent together. */
  private static List<Uni<Void>> insertsThenCommit(PipelinedTransaction tx, List<Integer> ids) {
    List<Uni<Void>> statements = new ArrayList<>(inserts(tx, ids));
    statements.add(tx.commit());
    return statements;
  }

  private static List<Uni<Void>> inserts(PipelinedTransaction tx, List<Integer> ids) {
    SqlConnection connection = tx.connection();
    return ids.stream()
        .map(
            id ->
                connection
                    .preparedQuery("INSERT INTO pipelined VALUES ($1, txid_current())")
                    .execute(Tuple.of(id))
                    .replaceWithVoid())
        .toList();
  }

  /** Whether the pool's (only) connection is inside a transaction block of an earlier user. */
  private boolean openTransactionOnThePoolsConnection() {
    // now() is the transaction's start: equal to statement_timestamp() only outside a block.
    return pool.query("SELECT now() <> statement_timestamp() AS open")
        .execute()
        .map(rows -> rows.iterator().next().getBoolean("open"))
        .await()
        .atMost(BOUND);
  }

  private long rows(String sql) {
    Row row = pool.query(sql).execute().await().atMost(BOUND).iterator().next();
    return row.getLong(0);
  }

  private void run(String sql) {
    pool.query(sql).execute().await().atMost(BOUND);
  }
}
