package io.fleetwave.controlplane.rollout.store;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.operators.multi.processors.BroadcastProcessor;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.pubsub.PgSubscriber;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import io.vertx.pgclient.PgConnectOptions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * What the rollout engine and the API signal through PostgreSQL (LISTEN/NOTIFY on {@value
 * #CHANNEL}): a rollout's projection changed, an operator request was answered, a request was
 * queued (the leading engine wakes on it, whichever replica took the request). The engine notifies
 * in the same transaction as the write, so a signal arrives once the change is visible, on every
 * replica. Readers still re-read on a slow tick ({@link #SAFETY_NET}) in case a signal was lost
 * while the listening connection was being re-established.
 */
@ApplicationScoped
public class RolloutSignals {
  public static final String CHANNEL = "fleetwave_rollouts";

  /** How often a waiting reader re-reads anyway: only matters when a notification was lost. */
  public static final Duration SAFETY_NET = Duration.ofSeconds(2);

  private static final Logger LOG = Logger.getLogger(RolloutSignals.class);
  private static final String REQUEST = "request:";

  private final Vertx vertx;
  private final Optional<String> url;
  private final Optional<String> user;
  private final Optional<String> password;
  private final BroadcastProcessor<String> signals = BroadcastProcessor.create();
  private volatile PgSubscriber subscriber;

  public RolloutSignals(
      Vertx vertx,
      @ConfigProperty(name = "quarkus.datasource.reactive.url") Optional<String> url,
      @ConfigProperty(name = "quarkus.datasource.username") Optional<String> user,
      @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password) {
    this.vertx = vertx;
    this.url = url;
    this.user = user;
    this.password = password;
  }

  void onStart(@Observes StartupEvent event) {
    if (url.isEmpty()) {
      return;
    }
    String uri = url.get().replaceFirst("^vertx-reactive:", "");
    PgConnectOptions options = PgConnectOptions.fromUri(uri);
    user.ifPresent(options::setUser);
    password.ifPresent(options::setPassword);
    PgSubscriber listening = PgSubscriber.subscriber(vertx, options);
    // Reconnects without end, a second apart: readers fall back to their safety net meanwhile.
    listening.reconnectPolicy(retries -> 1000L);
    listening.channel(CHANNEL).handler(signals::onNext);
    listening
        .connect()
        .subscribe()
        .with(
            ok -> LOG.debugf("listening on %s", CHANNEL),
            e ->
                LOG.warnf(
                    "cannot listen on %s (readers re-read every %s): %s",
                    CHANNEL, SAFETY_NET, e.getMessage()));
    subscriber = listening;
  }

  void onStop(@Observes ShutdownEvent event) {
    PgSubscriber listening = subscriber;
    if (listening != null) {
      listening.closeAndAwait();
    }
  }

  /** The payload the engine notifies when a rollout's projection changed. */
  public static String changed(UUID rollout) {
    return rollout.toString();
  }

  /** The payload the API notifies when it queued an operator request (for the leading engine). */
  public static final String QUEUED = "queued";

  /** Every signal of a queued request, on whichever replica it was queued. */
  public Multi<String> queued() {
    return signals.filter(QUEUED::equals);
  }

  /** The payload the engine notifies when it answered an operator request. */
  public static String answered(UUID request) {
    return REQUEST + request;
  }

  /** Signals {@code payload} on {@value #CHANNEL} when the caller's transaction commits. */
  public static Uni<Void> notify(SqlClient tx, String payload) {
    return tx.preparedQuery("SELECT pg_notify($1, $2)")
        .execute(Tuple.of(CHANNEL, payload))
        .replaceWithVoid();
  }

  /**
   * A tick now, then one whenever {@code payload} is signalled, and at least every {@link
   * #SAFETY_NET}: what a reader re-reads on. Subscribed to the signals before the first tick, so a
   * change between the first read and the subscription is not missed.
   */
  public Multi<Object> ticks(String payload) {
    Multi<Object> signalled = signals.filter(payload::equals).map(p -> (Object) p);
    Multi<Object> safetyNet = Multi.createFrom().ticks().every(SAFETY_NET).map(t -> (Object) t);
    return Multi.createBy()
        .merging()
        .streams(signalled, Multi.createFrom().item((Object) "now"), safetyNet);
  }
}
