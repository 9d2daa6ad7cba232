package io.fleetwave.agent;

import io.fleetwave.agent.gpu.GpuBackend;
import io.fleetwave.agent.host.HostFacts;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Takes a node's GPUs up once its driver is there. An agent started before the driver (a driver
 * container still installing, a Talos extension whose modules are not loaded, a COS node before its
 * installer ran) registers with the reason and heartbeats; this retries the driver probe with
 * capped exponential backoff (1 s, 2 s, 4 s... up to the cap) on a thread of its own, and hands the
 * opened GPUs over once. Each change of state is logged once: the first reason, a different reason,
 * the GPUs up; a repeated attempt with the same reason is not.
 */
final class DriverWait implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(DriverWait.class.getName());
  private static final Duration FIRST_RETRY = Duration.ofSeconds(1);

  /** The outcome of one probe of the driver. */
  sealed interface Attempt permits Opened, NotReady {
    HostFacts facts();
  }

  /** The GPUs could be opened: the backend and the driver version it reports. */
  record Opened(HostFacts facts, GpuBackend gpus, String driverVersion) implements Attempt {}

  /** No usable driver yet, and why (where the library was looked for, or what NVML said). */
  record NotReady(HostFacts facts, String reason) implements Attempt {}

  private final String node;
  private final Supplier<Attempt> probe;
  private final Duration cap;
  private final Consumer<Opened> opened;
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().daemon().name("driver-wait").factory());
  private volatile boolean closed;
  private String lastReason;
  private int attempts;
  private long startedNanos;

  /**
   * @param probe one attempt: probe the host and try to open the GPUs
   * @param cap the longest wait between two attempts
   * @param opened what to do with the GPUs once open (called once, on this class's thread)
   */
  DriverWait(String node, Supplier<Attempt> probe, Duration cap, Consumer<Opened> opened) {
    this.node = Objects.requireNonNull(node, "node");
    this.probe = Objects.requireNonNull(probe, "probe");
    this.cap = Objects.requireNonNull(cap, "cap");
    this.opened = Objects.requireNonNull(opened, "opened");
    if (cap.isNegative() || cap.isZero()) {
      throw new IllegalArgumentException("driver retry cap must be positive: " + cap);
    }
  }

  /** Starts retrying after the first attempt (made by the caller) found no driver. */
  void start(NotReady first) {
    startedNanos = System.nanoTime();
    attempts = 1;
    changed(first.reason());
    schedule();
  }

  /** The wait before attempt {@code attempt + 1}: doubling from 1 s, never above the cap. */
  static Duration delay(int attempt, Duration cap) {
    int doublings = Math.min(Math.max(attempt - 1, 0), 30);
    Duration delay = FIRST_RETRY.multipliedBy(1L << doublings);
    return delay.compareTo(cap) > 0 ? cap : delay;
  }

  // The schedule's future is not kept: close() stops the thread, and each attempt catches all.
  @SuppressWarnings("FutureReturnValueIgnored")
  private void schedule() {
    if (!closed) {
      thread.schedule(this::attempt, delay(attempts, cap).toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void attempt() {
    if (closed) {
      return;
    }
    attempts++;
    Attempt attempt;
    try {
      attempt = probe.get();
    } catch (RuntimeException e) {
      attempt = new NotReady(null, "driver probe failed: " + e);
    }
    switch (attempt) {
      case Opened up -> {
        LOG.log(
            Level.INFO,
            "{0}: GPUs up after {1} attempts in {2} s: driver {3} (driver root {4})",
            node,
            attempts,
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos),
            up.driverVersion(),
            up.facts().os().driverRoot());
        closed = true;
        opened.accept(up);
        thread.shutdown();
      }
      case NotReady notReady -> {
        if (!notReady.reason().equals(lastReason)) {
          changed(notReady.reason());
        } else {
          LOG.log(Level.DEBUG, "{0}: attempt {1}: still {2}", node, attempts, lastReason);
        }
        schedule();
      }
    }
  }

  private void changed(String reason) {
    lastReason = reason;
    LOG.log(
        Level.WARNING,
        "{0}: GPUs not ready: {1}; the driver probe is retried with backoff up to {2} s",
        node,
        reason,
        cap.toSeconds());
  }

  @Override
  public void close() {
    closed = true;
    thread.shutdownNow();
  }
}
