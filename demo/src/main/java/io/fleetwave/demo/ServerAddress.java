package io.fleetwave.demo;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Where this application's HTTP server listens, for the demo's nodes to enroll at: known once a
 * server has started. Quarkus starts one HTTP server per event loop and fires {@code
 * HttpServerStart} for each; on a random port (the tests' {@code quarkus.http.test-port=0}) only
 * the first to bind records the local base URI, before its own event (quarkus-vertx-http 3.33's
 * listen handler), so another server's event can come while the URI is not recorded yet. Taking
 * that first event's failure as the answer left a demo fleet whose nodes never enrolled (a fresh
 * clone's rollout tests then waited out their bounds for eight minutes); the first start that can
 * tell the address sets it, and none within {@code bound} of the first that could not fails it.
 */
final class ServerAddress {
  private final Duration bound;
  private final CompletableFuture<URI> known = new CompletableFuture<>();
  private final AtomicBoolean waiting = new AtomicBoolean();

  ServerAddress(Duration bound) {
    this.bound = bound;
  }

  /** The address once a start told it; failed, naming why, if none did within the bound. */
  CompletionStage<URI> known() {
    return known;
  }

  /**
   * One server's start: its configured port when it has one, else the URI Quarkus recorded for the
   * random port ({@code recorded} throws while it is not recorded yet).
   */
  void started(int configuredPort, Supplier<URI> recorded) {
    if (configuredPort > 0) {
      known.complete(URI.create("http://localhost:" + configuredPort + "/"));
      return;
    }
    try {
      known.complete(recorded.get());
    } catch (RuntimeException notRecordedYet) {
      // Another server's start: the one that bound first records the URI before its own event.
      if (waiting.compareAndSet(false, true)) {
        failAfterTheBound(notRecordedYet);
      }
    }
  }

  private void failAfterTheBound(RuntimeException first) {
    CompletableFuture.delayedExecutor(bound.toMillis(), TimeUnit.MILLISECONDS)
        .execute(
            () ->
                known.completeExceptionally(
                    new IllegalStateException(
                        "no HTTP server's start told where it listens within "
                            + bound
                            + " of the first that could not: "
                            + first.getMessage(),
                        first)));
  }
}
