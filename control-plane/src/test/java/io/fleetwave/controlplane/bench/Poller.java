package io.fleetwave.controlplane.bench;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A bench's background reader: a platform thread that polls until closed. Closing waits for it (10
 * s at most), so the consumer it owns is closed before the bench goes on.
 */
final class Poller implements AutoCloseable {
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Thread thread;

  /** Starts {@code loop}, which polls for as long as the supplier it is given answers true. */
  Poller(String name, Consumer<BooleanSupplier> loop) {
    thread = Thread.ofPlatform().name(name).start(() -> loop.accept(running::get));
  }

  @Override
  public void close() {
    running.set(false);
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      // Not rethrown (try-with-resources would hide it behind the body's exception); the
      // caller still sees the interruption.
      Thread.currentThread().interrupt();
    }
  }
}
