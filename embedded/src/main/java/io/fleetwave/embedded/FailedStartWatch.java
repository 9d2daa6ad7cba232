package io.fleetwave.embedded;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Ends a PostgreSQL start as soon as its postmaster has given up, instead of at its bound. zonky
 * runs {@code pg_ctl -w start} and then polls the port for its whole startup bound whatever pg_ctl
 * says: a postmaster that cannot bind its port exits at once, and the start waited 30 s before the
 * next attempt on another port. This watch sees that start's {@code pg_ctl} end with no postmaster
 * left on the data directory, and interrupts the starting thread, which zonky's wait takes as its
 * end.
 */
final class FailedStartWatch implements AutoCloseable {
  private static final Duration POLL = Duration.ofMillis(50);

  private final Path dataDirectory;
  private final Thread starter;
  private boolean finished; // guarded by this
  private boolean failed; // guarded by this

  private FailedStartWatch(Path dataDirectory, Thread starter) {
    this.dataDirectory = dataDirectory;
    this.starter = starter;
  }

  /** Watches the start the calling thread is about to make on {@code dataDirectory}. */
  static FailedStartWatch onThisThread(Path dataDirectory) {
    FailedStartWatch watch = new FailedStartWatch(dataDirectory, Thread.currentThread());
    Thread.ofVirtual().name("postgres-start-watch").start(watch::watch);
    return watch;
  }

  /**
   * Ends the watch; true when the postmaster ended during the start (the interrupt that ended
   * zonky's wait is cleared).
   */
  boolean postmasterEnded() {
    synchronized (this) {
      finished = true;
      if (!failed) {
        return false;
      }
    }
    Thread.interrupted();
    return true;
  }

  @Override
  public void close() {
    postmasterEnded();
  }

  private void watch() {
    Optional<ProcessHandle> pgCtl = Optional.empty();
    while (!isFinished()) {
      if (pgCtl.isEmpty()) {
        pgCtl = pgCtl();
      } else if (!pgCtl.get().isAlive() && !postmasterRuns()) {
        synchronized (this) {
          if (!finished) {
            failed = true;
            starter.interrupt();
          }
        }
        return;
      }
      try {
        Thread.sleep(POLL);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private synchronized boolean isFinished() {
    return finished;
  }

  /** This start's {@code pg_ctl}: a child of this JVM's, named with the data directory. */
  private Optional<ProcessHandle> pgCtl() {
    String directory = dataDirectory.toString();
    return ProcessHandle.current()
        .children()
        .filter(
            child ->
                child
                    .info()
                    .commandLine()
                    .filter(line -> line.contains("pg_ctl") && line.contains(directory))
                    .isPresent())
        .findFirst();
  }

  private boolean postmasterRuns() {
    return EmbeddedPostgres.postmaster(dataDirectory.resolve("postmaster.pid")).isPresent();
  }
}
