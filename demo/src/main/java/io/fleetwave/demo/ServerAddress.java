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
 * listen handler), and the events are observed asynchronously, so every one of them can be seen
 * while the URI is not recorded yet. Taking the first event's failure as the answer left a demo
 * fleet whose nodes never enrolled (a fresh clone's rollout tests then waited out their bounds for
 * eight minutes); so did waiting for a later event that could tell it (a fresh clone of e932bf3,
 * all events seen before the URI was recorded). So the URI is asked again, every {@link #AGAIN},
 * until it is recorded, and the address fails, naming why, only if it is not within {@code bound}
 * of the first start.
 */
final class ServerAddress {
  static final Duration AGAIN = Duration.ofMillis(100);

  private final Duration bound;
  private final CompletableFuture<URI> known = new CompletableFuture<>();
  private final AtomicBoolean asking = new AtomicBoolean();

  ServerAddress(Duration bound) {
    this.bound = bound;
  }

  /** The address once a start told it; failed, naming why, if none did within the bound. */
  CompletionStage<URI> known() {
    return known;
  }

  /**
   * One server's start: its configured port when it has one, else the URI Quarkus recorded for the
   * random port ({@code recorded} throws while it is not recorded yet), asked again until it is.
   */
  void started(int configuredPort, Supplier<URI> recorded) {
    if (configuredPort > 0) {
      known.complete(URI.create("http://localhost:" + configuredPort + "/"));
      return;
    }
    try {
      known.complete(recorded.get());
    } catch (RuntimeException notRecordedYet) {
      if (asking.compareAndSet(false, true)) {
        askAgainLater(recorded, System.nanoTime() + bound.toNanos());
      }
    }
  }

  private void askAgainLater(Supplier<URI> recorded, long deadline) {
    CompletableFuture.delayedExecutor(AGAIN.toMillis(), TimeUnit.MILLISECONDS)
        .execute(
            () -> {
              if (known.isDone()) {
                return;
              }
              try {
                known.complete(recorded.get());
              } catch (RuntimeException notRecordedYet) {
                if (System.nanoTime() - deadline < 0) {
                  askAgainLater(recorded, deadline);
                  return;
                }
                known.completeExceptionally(
                    new IllegalStateException(
                        "Quarkus recorded no address for the HTTP server within "
                            + bound
                            + " of its first start: "
                            + notRecordedYet.getMessage(),
                        notRecordedYet));
              }
            });
  }
}
