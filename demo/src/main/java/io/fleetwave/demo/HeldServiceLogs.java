package io.fleetwave.demo;

import io.fleetwave.agent.logging.TextLineFormatter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The embedded Kafka's and PostgreSQL's records from before Quarkus has configured logging, held
 * aside. They start before Quarkus, so their start-up records (about two thousand) would wait in
 * Quarkus' queue for its configuration; when the start fails before that (a setting it cannot
 * read), Quarkus writes that queue to the console, and the cause came after all of them. Held here
 * instead: once the application runs they go where its configuration sends everything (the log
 * file, the console's filter), and after a failed start they are written to the log file the
 * console named at start. Nothing is dropped but past {@link #LIMIT} records, which are counted.
 */
final class HeldServiceLogs extends Handler {
  /** The loggers of what starts the embedded services. */
  static final List<String> STARTING =
      List.of("io.fleetwave.embedded", EmbeddedServices.class.getName());

  /** The embedded broker's loggers (the control plane's Kafka clients' too, until released). */
  static final List<String> KAFKA = List.of("kafka", "state.change.logger", "org.apache.kafka");

  /** The embedded PostgreSQL's (the server's own output comes through zonky's logger). */
  static final List<String> POSTGRES = List.of("io.zonky");

  /** Well above a start's and a stop's records together (about 800 at INFO). */
  static final int LIMIT = 20_000;

  // Kept: the log manager holds its loggers weakly, and a logger collected would lose its settings.
  private final List<Logger> loggers;
  // Guarded by this: a record published while release() drains is either drained or refused.
  private final Queue<LogRecord> held = new ArrayDeque<>();
  private int dropped;
  private boolean released;

  private HeldServiceLogs(List<Logger> loggers) {
    this.loggers = loggers;
    // Until Quarkus has read its configuration every level reaches the handlers; the demo's file
    // takes INFO and above (quarkus.log.level's default), and so does what is held for it.
    setLevel(Level.INFO);
  }

  /**
   * Holds the records of the services the demo is about to start from now on, away from every other
   * handler: an external Kafka's clients, say, keep warning on the console as they did.
   */
  static HeldServiceLogs hold(boolean kafka, boolean postgres) {
    List<String> names = new ArrayList<>(STARTING);
    if (kafka) {
      names.addAll(KAFKA);
    }
    if (postgres) {
      names.addAll(POSTGRES);
    }
    HeldServiceLogs handler = new HeldServiceLogs(names.stream().map(Logger::getLogger).toList());
    for (Logger logger : handler.loggers) {
      logger.addHandler(handler);
      logger.setUseParentHandlers(false);
    }
    return handler;
  }

  @Override
  public synchronized void publish(LogRecord record) {
    if (released || !isLoggable(record)) {
      return;
    }
    if (held.size() >= LIMIT) {
      dropped++;
      return;
    }
    held.add(record);
  }

  /**
   * Quarkus has configured logging: the services' loggers use its handlers again, and what was held
   * is logged through them, in the order it came. Once only.
   */
  synchronized void release() {
    if (released) {
      return;
    }
    released = true;
    for (Logger logger : loggers) {
      logger.removeHandler(this);
      logger.setUseParentHandlers(true);
    }
    for (LogRecord record = held.poll(); record != null; record = held.poll()) {
      Logger.getLogger(record.getLoggerName() == null ? "" : record.getLoggerName()).log(record);
    }
    if (dropped > 0) {
      Logger.getLogger(EmbeddedServices.class.getName())
          .warning(dropped + " start-up records of the embedded services were not kept");
    }
  }

  /** Whether {@link #release()} or {@link #writeTo} has run. */
  synchronized boolean released() {
    return released;
  }

  /**
   * The application did not start (or stopped before it ran): appends what is held to {@code file},
   * which Quarkus may never have opened, and says so on the console.
   */
  synchronized void writeTo(Path file) {
    if (released || held.isEmpty()) {
      return;
    }
    released = true;
    for (Logger logger : loggers) {
      logger.removeHandler(this);
    }
    Formatter formatter = new TextLineFormatter();
    try (Writer out =
        Files.newBufferedWriter(
            file,
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND,
            StandardOpenOption.WRITE)) {
      for (LogRecord record = held.poll(); record != null; record = held.poll()) {
        out.write(formatter.format(record));
      }
      if (dropped > 0) {
        out.write(dropped + " further records were not kept" + System.lineSeparator());
      }
      System.err.println("fleetwave demo: the embedded services' log records are in " + file);
    } catch (IOException e) {
      System.err.println(
          "fleetwave demo: cannot write the embedded services' logs to " + file + ": " + e);
    }
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}
}
