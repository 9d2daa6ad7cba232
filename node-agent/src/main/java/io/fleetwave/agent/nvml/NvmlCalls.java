package io.fleetwave.agent.nvml;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Runs NVML calls on one dedicated thread, one at a time, each waited for at most a bound.
 *
 * <p>A call that does not return within its bound (a wedged GPU, a driver holding a kernel lock)
 * fails with {@link NvmlHungException} naming the function and the bound; its thread is left in the
 * driver, marked as stuck. While it is stuck, every later call fails at once with the stuck
 * function and how long it has been stuck, instead of starting on a fresh thread. Why fail fast
 * rather than carry on elsewhere:
 *
 * <ul>
 *   <li>NVML is not guaranteed safe for concurrent calls on the same device, and the stuck call (a
 *       MIG mode change, an instance creation) may still complete and change the GPU under a second
 *       caller: one call at a time, in order, keeps NVML's view of the node consistent.
 *   <li>A call hangs because the driver or GPU is wedged; more calls would hang as well, each
 *       leaking a thread that no interrupt can free. Failing fast leaks at most one.
 * </ul>
 *
 * When the stuck call returns, its result is dropped (the caller has given up; the agent re-reads
 * the GPUs before acting again) and calls run normally on the same thread again. Both changes are
 * logged once; callers report the failure where it happened (a reconcile step's StepFailed).
 *
 * <p>Callers never wait unboundedly: the turn to call is also waited for at most the bound.
 */
final class NvmlCalls {
  private static final System.Logger LOG = System.getLogger(NvmlCalls.class.getName());

  /** The bound on one call unless set: NVML calls return in micro- to milliseconds when healthy. */
  static final Duration DEFAULT_BOUND = Duration.ofSeconds(10);

  /** nvmlInit and nvmlShutdown attach or detach every GPU: seconds per GPU without persistence. */
  static final Duration INIT_BOUND = Duration.ofSeconds(60);

  private final Duration bound;
  private final ReentrantLock turn = new ReentrantLock(true);
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("nvml-call").factory());
  private volatile Thread worker;
  private volatile String inFlight = "no NVML function yet";
  private volatile Stuck stuck;

  private record Stuck(String function, long sinceNanos, CompletableFuture<?> call) {}

  NvmlCalls(Duration bound) {
    if (bound == null || bound.isNegative() || bound.isZero()) {
      throw new IllegalArgumentException("NVML call bound must be positive: " + bound);
    }
    this.bound = bound;
  }

  /** Runs {@code body} on NVML's thread, waiting for it at most the call bound. */
  <T> T run(Supplier<T> body) {
    return run(bound, body);
  }

  /**
   * Runs {@code body} on NVML's thread, waiting for it at most {@code limit}.
   *
   * @throws NvmlHungException when it did not return within {@code limit}, or an earlier call is
   *     still stuck
   */
  <T> T run(Duration limit, Supplier<T> body) {
    if (Thread.currentThread() == worker) {
      return body.get(); // a nested call (an error text while checking a return code)
    }
    acquireTurn(limit);
    try {
      failFastWhileStuck();
      long started = System.nanoTime();
      CompletableFuture<T> call =
          CompletableFuture.supplyAsync(
              () -> {
                worker = Thread.currentThread();
                return body.get();
              },
              thread);
      try {
        return call.get(limit.toNanos(), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        String function = inFlight;
        abandon(function, limit, started, call);
        throw new NvmlHungException(
            function,
            function
                + " did not return within "
                + format(limit)
                + "; no NVML call is made until it returns");
      } catch (InterruptedException e) {
        String function = inFlight;
        abandon(function, limit, started, call);
        Thread.currentThread().interrupt();
        throw new NvmlHungException(
            function, function + " abandoned: its caller was interrupted while it ran");
      } catch (ExecutionException e) {
        throw rethrown(e.getCause());
      }
    } finally {
      turn.unlock();
    }
  }

  /** Called on NVML's thread as it enters a function, so a hang can be named. */
  void entering(String function) {
    inFlight = function;
  }

  /** Whether a call is stuck in the driver now. */
  boolean stuck() {
    Stuck now = stuck;
    return now != null && !now.call().isDone();
  }

  /**
   * Stops NVML's thread.
   *
   * @return false when a call is still stuck in the library (it must then stay loaded)
   */
  boolean close() {
    thread.shutdown();
    return !stuck();
  }

  private void acquireTurn(Duration limit) {
    try {
      if (!turn.tryLock(limit.toNanos(), TimeUnit.NANOSECONDS)) {
        throw new NvmlHungException(
            inFlight,
            "no turn to call NVML within "
                + format(limit)
                + ": "
                + inFlight
                + " is running for another caller");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NvmlHungException(inFlight, "interrupted while waiting for NVML");
    }
  }

  private void failFastWhileStuck() {
    Stuck now = stuck;
    if (now == null) {
      return;
    }
    if (!now.call().isDone()) {
      throw new NvmlHungException(
          now.function(),
          "NVML is stuck: "
              + now.function()
              + " has not returned for "
              + format(Duration.ofNanos(System.nanoTime() - now.sinceNanos()))
              + " (bound "
              + format(bound)
              + "); no NVML call is made until it returns");
    }
    stuck = null;
  }

  private void abandon(String function, Duration limit, long started, CompletableFuture<?> call) {
    stuck = new Stuck(function, started, call);
    LOG.log(
        Level.WARNING,
        "{0} did not return within {1}: NVML calls fail fast until it returns",
        function,
        format(limit));
    // Only logs; the call's own outcome was already given up on.
    var _ =
        call.whenComplete(
            (result, error) ->
                LOG.log(
                    Level.INFO,
                    "{0} returned after {1}, result dropped; NVML calls run again",
                    function,
                    format(Duration.ofNanos(System.nanoTime() - started))));
  }

  private static RuntimeException rethrown(Throwable cause) {
    if (cause instanceof RuntimeException runtime) {
      return runtime;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return new IllegalStateException(cause);
  }

  /** "10 s", "1.5 s" or "250 ms", as people read a bound. */
  static String format(Duration duration) {
    long millis = duration.toMillis();
    if (millis < 1000) {
      return millis + " ms";
    }
    return millis % 1000 == 0
        ? millis / 1000 + " s"
        : String.format(java.util.Locale.ROOT, "%.1f s", millis / 1000.0);
  }
}
