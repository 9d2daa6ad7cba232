package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.controlplane.config.RolloutConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.vertx.core.VertxOptions;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgBuilder;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The rollout engine's own PostgreSQL connections, on their own two event loops. On the
 * application's shared pool a node's spec batch (lock, read, save, commit) waited for a connection
 * and for event loops busy with the node-event projection (0.7 s p50, 3.1 s p99 from NodeStarted to
 * the spec record at 10,000 nodes); here the engine's reads, its rollout projection and its spec
 * batches queue only behind each other. Same database, same credentials ({@code
 * quarkus.datasource.*}), {@code fleetwave.rollout.engine.pool-size} connections.
 */
@ApplicationScoped
public class EnginePool {
  private final Optional<String> url;
  private final Optional<String> user;
  private final Optional<String> password;
  private final int size;
  private Vertx vertx;
  private Pool pool;

  public EnginePool(
      @ConfigProperty(name = "quarkus.datasource.reactive.url") Optional<String> url,
      @ConfigProperty(name = "quarkus.datasource.username") Optional<String> user,
      @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password,
      RolloutConfig config) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.size = config.engine().poolSize();
  }

  /** The engine's pool, made on first use; {@code shared} where no database URL is configured. */
  synchronized Pool orShared(Pool shared) {
    if (url.isEmpty()) {
      return shared;
    }
    if (pool == null) {
      PgConnectOptions options =
          PgConnectOptions.fromUri(url.get().replaceFirst("^vertx-reactive:", ""));
      user.ifPresent(options::setUser);
      password.ifPresent(options::setPassword);
      vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2).setWorkerPoolSize(1));
      pool =
          PgBuilder.pool()
              .connectingTo(options)
              .with(new PoolOptions().setMaxSize(size).setName("rollout-engine"))
              .using(vertx)
              .build();
    }
    return pool;
  }

  // After the engine stopped (RolloutEngines observes at the default priority): it may still be
  // finishing a round on these connections.
  synchronized void onStop(
      @Observes
          @jakarta.annotation.Priority(jakarta.interceptor.Interceptor.Priority.PLATFORM_AFTER)
          ShutdownEvent event) {
    if (pool != null) {
      pool.close().await().atMost(Duration.ofSeconds(10));
      vertx.close().await().atMost(Duration.ofSeconds(10));
      pool = null;
    }
  }
}
