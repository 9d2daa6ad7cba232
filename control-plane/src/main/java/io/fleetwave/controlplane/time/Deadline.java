package io.fleetwave.controlplane.time;

import java.time.Duration;
import java.util.function.Function;

/**
 * A fixed end time for work done in stages, each stage bounded by the time left: a stage that asks
 * past the end fails with its owner's exception, naming the stage, so that a whole read or rebuild
 * keeps one bound however its time is spent among its calls.
 *
 * @param <X> what an expired stage throws
 */
public final class Deadline<X extends RuntimeException> {
  private final Duration total;
  private final long endNanos;
  private final Function<String, X> expired;

  /**
   * @param expired the exception for a stage (its name given) that asks past the end
   */
  public Deadline(Duration total, Function<String, X> expired) {
    this.total = total;
    this.endNanos = System.nanoTime() + total.toNanos();
    this.expired = expired;
  }

  /** The whole bound, as given. */
  public Duration total() {
    return total;
  }

  /**
   * The time left for {@code stage}.
   *
   * @throws X when none is left
   */
  public Duration remaining(String stage) {
    long left = endNanos - System.nanoTime();
    if (left <= 0) {
      throw expired(stage);
    }
    return Duration.ofNanos(left);
  }

  /** The exception for {@code stage}, for a stage that learned of the end another way. */
  public X expired(String stage) {
    return expired.apply(stage);
  }
}
