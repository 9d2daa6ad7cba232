package io.fleetwave.controlplane.readmodel;

import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * A value loaded at most one load at a time and served for a bounded time: never older than {@code
 * maxAge}. Once it is older than half of that, the next read starts one refresh in the background
 * and is served the current value; a read finding it older than {@code maxAge} (or none yet) waits
 * for the refresh in flight (or starts it). Concurrent readers share one load; a failed load is not
 * kept: the next read tries again.
 */
public final class StaleWhileRefresh<T> {
  private static final Logger LOG = Logger.getLogger(StaleWhileRefresh.class);

  private record Loaded<T>(T value, Instant at) {}

  private final Supplier<Uni<T>> loader;
  private final Duration maxAge;
  private final Duration refreshAfter;
  private final InstantSource clock;
  private final AtomicReference<Loaded<T>> current = new AtomicReference<>();
  private final AtomicReference<Uni<T>> inFlight = new AtomicReference<>();

  public StaleWhileRefresh(Supplier<Uni<T>> loader, Duration maxAge, InstantSource clock) {
    this.loader = loader;
    this.maxAge = maxAge;
    this.refreshAfter = maxAge.dividedBy(2);
    this.clock = clock;
  }

  public Uni<T> get() {
    return Uni.createFrom()
        .deferred(
            () -> {
              Loaded<T> loaded = current.get();
              Instant now = clock.instant();
              if (loaded == null || !now.isBefore(loaded.at().plus(maxAge))) {
                return refresh();
              }
              if (!now.isBefore(loaded.at().plus(refreshAfter))) {
                refresh()
                    .subscribe()
                    .with(
                        value -> {},
                        failure ->
                            LOG.warnf(
                                "background refresh failed; the value of %s is served until %s: %s",
                                loaded.at(), loaded.at().plus(maxAge), failure.toString()));
              }
              return Uni.createFrom().item(loaded.value());
            });
  }

  /** The load in flight, or a new one: its time is taken when it starts, so the bound holds. */
  private Uni<T> refresh() {
    while (true) {
      Uni<T> running = inFlight.get();
      if (running != null) {
        return running;
      }
      AtomicReference<Uni<T>> self = new AtomicReference<>();
      Uni<T> load =
          Uni.createFrom()
              .deferred(
                  () -> {
                    Instant started = clock.instant();
                    return loader.get().invoke(value -> current.set(new Loaded<>(value, started)));
                  })
              .eventually(() -> inFlight.compareAndSet(self.get(), null))
              .memoize()
              .indefinitely();
      self.set(load);
      if (inFlight.compareAndSet(null, load)) {
        return load;
      }
    }
  }
}
