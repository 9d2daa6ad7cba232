package io.fleetwave.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server (zonky's packaged binaries) as a child process that dies with this JVM.
 * Its data directory is its own (not zonky's scratch directory), so that it can be stopped and
 * started again on the same data and port: fault-injection tests take the database away under a
 * running control plane and give it back.
 */
public final class EmbeddedPostgres implements AutoCloseable {
  public static final String DATABASE = "postgres";
  public static final String USER = "postgres";
  public static final String PASSWORD = "postgres";
  private static final Duration STARTUP_BOUND = Duration.ofSeconds(30);
  // A start that fails is tried again on another port (a port taken between its choice and the
  // bind still fails a start, as soon as its postmaster ends: FailedStartWatch); the last failure
  // is reported.
  private static final int START_ATTEMPTS = 3;
  // How long a stop may take beyond pg_ctl's own five seconds: a shutdown checkpoint on a loaded
  // two-core machine, backends finishing their work.
  private static final Duration STOP_BOUND = Duration.ofSeconds(60);
  private static final Duration STOP_POLL = Duration.ofMillis(20);

  /** Guarded by the class: the cluster {@link #startFromTemplate()} copies, once made. */
  private static Path template;

  private final Path dataDirectory;
  // Whether commits wait for the disk: see start() and startFromTemplate().
  private final boolean flush;
  private final int port;
  private io.zonky.test.db.postgres.embedded.EmbeddedPostgres server;

  private EmbeddedPostgres(
      Path dataDirectory,
      boolean flush,
      io.zonky.test.db.postgres.embedded.EmbeddedPostgres server) {
    this.dataDirectory = dataDirectory;
    this.flush = flush;
    this.server = server;
    this.port = server.getPort();
  }

  /**
   * A fresh server with PostgreSQL's default durability ({@code fsync}, {@code synchronous_commit}
   * and {@code full_page_writes} on), as a production server runs: the demo, the benchmarks and the
   * tests that start a server of their own wait for the flush every commit waits for in production.
   */
  public static EmbeddedPostgres start() {
    return startOn(
        EmbeddedPostgres::newDataDirectory,
        true,
        LoopbackPorts::belowTheEphemeralRange,
        STARTUP_BOUND);
  }

  /**
   * A fresh server on a copy of a cluster initialised once in this JVM (initdb takes seconds of
   * CPU, copying its result a fraction of one), for the test JVMs that start a server for every
   * application they run. Its commits are not flushed ({@code fsync} and {@code synchronous_commit}
   * off): the suite makes hundreds of thousands of commits, each of which would wait 3 to 6 ms for
   * this machine's disk (the control plane's ITs took 1.4 to 2.3 times as long, the database-heavy
   * ones up to 7 times). What a test proves does not depend on the flush, only how long it takes;
   * the demo, the benchmarks and the system tier run durable ({@link #start()}).
   */
  public static EmbeddedPostgres startFromTemplate() {
    Path template = template();
    return startOn(
        () -> copyOf(template), false, LoopbackPorts::belowTheEphemeralRange, STARTUP_BOUND);
  }

  private static Path copyOf(Path template) {
    Path dataDirectory = newDataDirectory();
    try (Stream<Path> files = Files.walk(template)) {
      for (Path from : (Iterable<Path>) files::iterator) {
        Path to = dataDirectory.resolve(template.relativize(from).toString());
        if (!Files.isDirectory(to)) {
          Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot copy PostgreSQL's template cluster " + template + " to " + dataDirectory, e);
    }
    return dataDirectory;
  }

  /** The cluster {@link #startFromTemplate()} copies: initialised, started and stopped cleanly. */
  private static synchronized Path template() {
    if (template == null) {
      Launched launched =
          launchOnAFreePort(
              EmbeddedPostgres::newDataDirectory,
              false,
              LoopbackPorts::belowTheEphemeralRange,
              STARTUP_BOUND);
      Path directory = launched.dataDirectory();
      // Stopped "pg_ctl stop -m fast" (a shutdown checkpoint) and ended, so a copy starts clean.
      stopAndAwaitEnd(launched.server(), directory);
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> deleteTree(directory), "fleetwave-postgres-template"));
      template = directory;
    }
    return template;
  }

  private static Path newDataDirectory() {
    try {
      return Files.createTempDirectory("fleetwave-postgres-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a data directory for PostgreSQL", e);
    }
  }

  /**
   * As {@link #startFromTemplate()} on the ports {@code ports} offers, each start bounded by {@code
   * bound}.
   */
  static EmbeddedPostgres startFromTemplate(IntSupplier ports, Duration bound) {
    Path template = template();
    return startOn(() -> copyOf(template), false, ports, bound);
  }

  private static EmbeddedPostgres startOn(
      Supplier<Path> dataDirectories, boolean flush, IntSupplier ports, Duration bound) {
    Launched launched = launchOnAFreePort(dataDirectories, flush, ports, bound);
    EmbeddedPostgres postgres =
        new EmbeddedPostgres(launched.dataDirectory(), flush, launched.server());
    // The data directory is ours, not zonky's: nothing else deletes it when a JVM ends unclosed.
    Runtime.getRuntime()
        .addShutdownHook(new Thread(postgres::close, "fleetwave-postgres-" + postgres.port));
    return postgres;
  }

  /** A started server and the data directory it runs on. */
  private record Launched(
      Path dataDirectory, io.zonky.test.db.postgres.embedded.EmbeddedPostgres server) {}

  /**
   * Starts a server on a data directory {@code dataDirectories} makes and a port {@code ports}
   * offers; when the start fails, on another directory and port ({@value #START_ATTEMPTS}
   * attempts). The failed attempt's directory is given up: zonky keeps its lock on it in this JVM,
   * and a postmaster that was only slow is stopped.
   *
   * <p>The port is chosen here ({@link LoopbackPorts}: below the kernel's ephemeral range), not by
   * zonky, which takes one from the kernel's range (a port-0 socket, closed again) where the
   * suite's port-0 binds and outgoing connections take theirs: a suite failed when one took it
   * before PostgreSQL bound it. A server stopped and restarted on its port (the outage tests) is
   * exposed to the same race while stopped, and is less so there too.
   */
  private static Launched launchOnAFreePort(
      Supplier<Path> dataDirectories, boolean flush, IntSupplier ports, Duration bound) {
    RuntimeException failed = null;
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      Path dataDirectory = dataDirectories.get();
      int port = ports.getAsInt();
      try {
        return new Launched(dataDirectory, launch(dataDirectory, port, flush, bound));
      } catch (RuntimeException e) {
        failed = e;
        System.getLogger(EmbeddedPostgres.class.getName())
            .log(
                System.Logger.Level.WARNING,
                "embedded PostgreSQL did not start on port {0} (attempt {1} of {2}): {3}",
                Integer.toString(port),
                attempt,
                START_ATTEMPTS,
                e.toString());
        abandon(dataDirectory);
      }
    }
    throw failed;
  }

  /** Ends a postmaster that may still run on {@code dataDirectory}, then deletes the directory. */
  private static void abandon(Path dataDirectory) {
    Optional<ProcessHandle> postmaster = postmaster(dataDirectory.resolve("postmaster.pid"));
    postmaster.ifPresent(ProcessHandle::destroy);
    postmaster.ifPresent(
        p -> {
          try {
            p.onExit().get(STOP_BOUND.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } catch (java.util.concurrent.ExecutionException
              | java.util.concurrent.TimeoutException e) {
            p.destroyForcibly();
          }
        });
    try {
      deleteTree(dataDirectory);
    } catch (UncheckedIOException e) {
      // What is left is a temporary directory; the start's own failure is what matters.
    }
  }

  /** Starts a server on {@code dataDirectory} (initialised when empty) on {@code port}. */
  private static io.zonky.test.db.postgres.embedded.EmbeddedPostgres launch(
      Path dataDirectory, int port, boolean flush) {
    return launch(dataDirectory, port, flush, STARTUP_BOUND);
  }

  private static io.zonky.test.db.postgres.embedded.EmbeddedPostgres launch(
      Path dataDirectory, int port, boolean flush, Duration bound) {
    try {
      var builder =
          io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
              .setDataDirectory(dataDirectory)
              .setCleanDataDirectory(false)
              .setPort(port)
              .setPGStartupWait(bound)
              // Enough connections for a reactive pool, Flyway and a benchmark side by side.
              .setServerConfig("max_connections", "200");
      // Both set either way: zonky's builder turns synchronous_commit off unless told otherwise.
      String on = flush ? "on" : "off";
      builder.setServerConfig("fsync", on).setServerConfig("synchronous_commit", on);
      try (FailedStartWatch watch = FailedStartWatch.onThisThread(dataDirectory)) {
        var server = builder.start();
        if (watch.postmasterEnded()) {
          closeAfterFailedStart(server);
          throw new IllegalStateException(
              "embedded PostgreSQL's postmaster ended during its start on port "
                  + port
                  + " (PostgreSQL's output, which zonky logs through SLF4J, says why: e.g. the"
                  + " port taken by another process)");
        }
        return server;
      }
    } catch (IOException e) {
      throw new IllegalStateException("embedded PostgreSQL failed to start: " + e.getMessage(), e);
    }
  }

  /** Releases what zonky holds of a start whose postmaster ended (its lock, its hook). */
  private static void closeAfterFailedStart(
      io.zonky.test.db.postgres.embedded.EmbeddedPostgres server) {
    try {
      server.close();
    } catch (IOException | RuntimeException e) {
      // pg_ctl stop finds no server: the start's own failure is what is reported.
    }
  }

  /**
   * Stops the server the way an operator's {@code pg_ctl stop -m fast} does: every client
   * connection is cut (its session ends with SQLSTATE 57P01), then the port is closed. The data
   * stays; {@link #restart()} brings the same database back on the same port.
   */
  public synchronized void stop() {
    if (server == null) {
      throw new IllegalStateException("PostgreSQL on port " + port + " is already stopped");
    }
    io.zonky.test.db.postgres.embedded.EmbeddedPostgres stopping = server;
    server = null;
    stopAndAwaitEnd(stopping, dataDirectory);
  }

  /**
   * Stops a server and returns once its postmaster has ended. zonky's close runs {@code pg_ctl stop
   * -m fast -t 5} and only logs when pg_ctl gives up after those five seconds, with the postmaster
   * still shutting down: deleting, copying or starting again on its data directory then races with
   * its last writes (a suite on a loaded two-core machine failed deleting {@code pg_wal} under it).
   * The postmaster removes {@code postmaster.pid} as about the last thing it does (pg_ctl waits for
   * that); the process itself ends a moment later.
   */
  private static void stopAndAwaitEnd(
      io.zonky.test.db.postgres.embedded.EmbeddedPostgres server, Path dataDirectory) {
    Path pidFile = dataDirectory.resolve("postmaster.pid");
    Optional<ProcessHandle> postmaster = postmaster(pidFile);
    try {
      server.close();
    } catch (IOException e) {
      throw new IllegalStateException(
          "embedded PostgreSQL in " + dataDirectory + " failed to stop", e);
    }
    long deadline = System.nanoTime() + STOP_BOUND.toNanos();
    while (Files.exists(pidFile) || postmaster.filter(ProcessHandle::isAlive).isPresent()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "PostgreSQL in "
                + dataDirectory
                + postmaster.map(p -> " (postmaster pid " + p.pid() + ")").orElse("")
                + " did not end within "
                + STOP_BOUND.toSeconds()
                + " s of pg_ctl stop -m fast");
      }
      try {
        Thread.sleep(STOP_POLL);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(
            "interrupted waiting for PostgreSQL in " + dataDirectory + " to end", e);
      }
    }
  }

  /** The process named by the first line of {@code postmaster.pid}, when it runs. */
  static Optional<ProcessHandle> postmaster(Path pidFile) {
    try (Stream<String> lines = Files.lines(pidFile)) {
      return lines.findFirst().map(String::strip).map(Long::parseLong).flatMap(ProcessHandle::of);
    } catch (IOException | NumberFormatException e) {
      // No readable pid file: the file alone is waited for.
      return Optional.empty();
    }
  }

  /** Starts the stopped server again on the same data directory and port. */
  public synchronized void restart() {
    if (server != null) {
      throw new IllegalStateException("PostgreSQL on port " + port + " is running");
    }
    server = launch(dataDirectory, port, flush);
  }

  public synchronized boolean running() {
    return server != null;
  }

  public int port() {
    return port;
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + port() + "/" + DATABASE;
  }

  /** The URL form the Vert.x reactive client takes. */
  public String reactiveUrl() {
    return "postgresql://localhost:" + port() + "/" + DATABASE;
  }

  /** The Quarkus configuration that points the reactive pool and Flyway at this server. */
  public Map<String, String> quarkusDatasourceProperties() {
    return Map.of(
        "quarkus.datasource.reactive.url",
        reactiveUrl(),
        "quarkus.datasource.jdbc.url",
        jdbcUrl(),
        "quarkus.datasource.username",
        USER,
        "quarkus.datasource.password",
        PASSWORD);
  }

  /** Stops the server (when running) and deletes its data. */
  @Override
  public synchronized void close() {
    if (server != null) {
      stop();
    }
    deleteTree(dataDirectory);
  }

  private static void deleteTree(Path directory) {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> files = Files.walk(directory)) {
      files.sorted(Comparator.reverseOrder()).forEach(EmbeddedPostgres::delete);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete PostgreSQL's data in " + directory, e);
    }
  }

  private static void delete(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + path, e);
    }
  }
}
