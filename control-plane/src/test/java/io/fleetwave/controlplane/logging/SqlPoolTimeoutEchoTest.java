package io.fleetwave.controlplane.logging;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/**
 * The filter against the SQL client the control plane ships: a pool whose database does not answer
 * fails a query, then its timer fails it again and Vert.x reports the "Result is already complete"
 * the filter drops. If a new client no longer does that, the first test fails and says the filter
 * can go.
 */
class SqlPoolTimeoutEchoTest {
  private static final Duration POOL_TIMEOUT = Duration.ofMillis(300);

  private final SqlPoolTimeoutEcho filter = new SqlPoolTimeoutEcho();

  @Test
  void dropsThePoolsSecondFailureOfAQueryThatGotNoConnection() throws Exception {
    Throwable echo = echoOfTheClient();
    assertThat(filter.isLoggable(logged(echo))).as("Vert.x's report of %s", echo).isFalse();
  }

  @Test
  void keepsEveryOtherLine() {
    IllegalStateException elsewhere = new IllegalStateException("Result is already complete");
    assertThat(filter.isLoggable(logged(elsewhere))).as("the same message from our code").isTrue();
    IllegalStateException other = new IllegalStateException("pool closed");
    other.setStackTrace(poolFrames());
    assertThat(filter.isLoggable(logged(other))).as("another failure in the pool").isTrue();
    assertThat(filter.isLoggable(new LogRecord(Level.SEVERE, "no exception"))).isTrue();
  }

  /** What Vert.x reports as unhandled after a query through a pool that gets no connection. */
  private static Throwable echoOfTheClient() throws Exception {
    Vertx vertx = Vertx.vertx();
    CompletableFuture<Throwable> unhandled = new CompletableFuture<>();
    vertx.exceptionHandler(unhandled::complete);
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort(); // nothing listens there once the socket is closed
    }
    Pool pool =
        PgBuilder.pool()
            .with(
                new PoolOptions()
                    .setMaxSize(1)
                    .setConnectionTimeout((int) POOL_TIMEOUT.toMillis())
                    .setConnectionTimeoutUnit(TimeUnit.MILLISECONDS))
            .connectingTo(
                new PgConnectOptions()
                    .setHost("127.0.0.1")
                    .setPort(closedPort)
                    .setDatabase("none")
                    .setUser("none"))
            .using(vertx)
            .build();
    try {
      Throwable refused =
          pool.query("SELECT 1")
              .execute()
              .toCompletionStage()
              .toCompletableFuture()
              .handle((rows, failure) -> failure)
              .get(10, TimeUnit.SECONDS);
      assertThat(refused).as("the query's own failure").isNotNull();
      return unhandled.get(POOL_TIMEOUT.multipliedBy(20).toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException fixed) {
      throw new AssertionError(
          "the SQL client no longer fails a query twice (vertx-sql-client#1706 fixed?):"
              + " SqlPoolTimeoutEcho and quarkus.log.console.filter can go",
          fixed);
    } finally {
      pool.close();
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private static LogRecord logged(Throwable thrown) {
    LogRecord record = new LogRecord(Level.SEVERE, "Unhandled exception");
    record.setThrown(thrown);
    return record;
  }

  private static StackTraceElement[] poolFrames() {
    return new StackTraceElement[] {
      new StackTraceElement(
          "io.vertx.sqlclient.impl.pool.SqlConnectionPool", "execute", "SqlConnectionPool.java", 1)
    };
  }
}
