package io.fleetwave.controlplane.readmodel;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fleetwave.testsupport.logging.LogRecords;
import io.quarkus.runtime.ShutdownEvent;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A stopping control plane counts no fleet summary, and a count its pool's closing cuts short ends
 * as cancelled, which Caffeine does not log: before, every shutdown under reads logged "Exception
 * thrown during refresh: Pool closed" warnings.
 */
class SummaryQueriesShutdownTest {
  private static final Duration BOUND = Duration.ofSeconds(10);

  private Vertx vertx;
  private ServerSocket silentDatabase;
  private volatile Socket accepted;
  private LogRecords caffeine;

  @BeforeEach
  void start() throws IOException {
    vertx = Vertx.vertx();
    // Accepts the pool's connection and never answers: a count stays in flight until the pool
    // closes.
    silentDatabase = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                accepted = silentDatabase.accept();
              } catch (IOException closed) {
                // the test is over
              }
            });
    caffeine = new LogRecords("com.github.benmanes.caffeine");
  }

  @AfterEach
  void stop() throws IOException {
    caffeine.close();
    if (accepted != null) {
      accepted.close();
    }
    silentDatabase.close();
    vertx.close().await().atMost(BOUND);
  }

  @Test
  void aCountCutShortByTheClosingPoolEndsCancelledAndUnlogged() throws Exception {
    Pool pool = pool();
    SummaryQueries summaries = new SummaryQueries(pool, () -> Duration.ofSeconds(2));
    var inFlight = summaries.summary().subscribeAsCompletionStage();
    // The count's connection reached the database and waits for its first answer. The pool's close
    // waits for a connection it is still opening, so how far the connection had got when the close
    // came decided whether it hung (on a loaded machine it had got this far, and the close hung):
    // here it always has, and the database then drops it.
    await("the count's connection accepted by the silent database")
        .atMost(BOUND)
        .until(() -> accepted != null);

    summaries.stopCounting(new ShutdownEvent());
    var closing = pool.close().subscribeAsCompletionStage();
    accepted.close(); // the database goes, as a stopping one would
    // Bounded: a close that hangs fails here, not the whole fork.
    closing.toCompletableFuture().get(BOUND.toSeconds(), SECONDS);

    assertThatThrownBy(() -> inFlight.toCompletableFuture().get(BOUND.toSeconds(), SECONDS))
        .hasRootCauseInstanceOf(CancellationException.class);
    assertThat(caffeine.lines()).isEmpty();
  }

  @Test
  void noCountStartsOnceStopping() {
    Pool pool = pool();
    pool.close().await().atMost(BOUND);
    SummaryQueries summaries = new SummaryQueries(pool, () -> Duration.ofSeconds(2));

    summaries.stopCounting(new ShutdownEvent());

    assertThatThrownBy(() -> summaries.summary().await().atMost(BOUND))
        .isInstanceOf(CancellationException.class)
        .hasMessageContaining("stopping");
    assertThat(caffeine.lines()).isEmpty();
  }

  private Pool pool() {
    PgConnectOptions database =
        new PgConnectOptions()
            .setHost(silentDatabase.getInetAddress().getHostAddress())
            .setPort(silentDatabase.getLocalPort())
            .setDatabase("fleetwave")
            .setUser("fleetwave")
            .setPassword("fleetwave");
    return Pool.newInstance(
        PgBuilder.pool()
            .with(new PoolOptions().setMaxSize(1))
            .connectingTo(database)
            .using(vertx.getDelegate())
            .build());
  }
}
