package io.fleetwave.testsupport.logging;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The records one logger publishes while attached: java.util.logging's, which System.Logger and
 * JBoss Logging (through its log manager) write to.
 */
public final class LogRecords implements AutoCloseable {
  private final Logger logger;
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  public LogRecords(Class<?> source) {
    this(source.getName());
  }

  /**
   * The records of the named logger and of the loggers below it (a library's package, whose classes
   * are not public).
   */
  public LogRecords(String loggerName) {
    this.logger = Logger.getLogger(loggerName);
    logger.addHandler(handler);
  }

  /** The records as published, in order. */
  public List<LogRecord> records() {
    return List.copyOf(records);
  }

  /** Each record's message with its parameters filled in, prefixed by its level. */
  public List<String> lines() {
    return records.stream()
        .map(r -> r.getLevel() + " " + new java.util.logging.SimpleFormatter().formatMessage(r))
        .toList();
  }

  @Override
  public void close() {
    logger.removeHandler(handler);
  }
}
