package io.fleetwave.controlplane.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * What libraries print to stderr, with JSON logs on: one WARN record a line of logger {@code
 * stderr} (the JSON console writes it as one object) from the start to the stop, stderr itself
 * again after it; with plain-text logs, stderr as it is.
 */
class StandardErrorLinesTest {
  @Test
  void withJsonLogsEachLinePrintedToStderrIsAWarningUntilTheStop() {
    PrintStream before = System.err;
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Handler capture =
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
    Logger stderr = Logger.getLogger("stderr");
    stderr.addHandler(capture);
    StandardErrorLines lines = new StandardErrorLines(true);
    try {
      lines.onStart(null);
      assertThat(System.err).isNotSameAs(before);
      // What the Vert.x SQL client prints for a connection PostgreSQL ended, and a stack trace.
      System.err.println("io.vertx.pgclient.PgException: FATAL: terminating connection (57P01)");
      new IllegalStateException("a library's failure").printStackTrace();
    } finally {
      lines.onStop(null);
      stderr.removeHandler(capture);
    }
    assertThat(System.err).isSameAs(before);
    assertThat(records)
        .allSatisfy(record -> assertThat(record.getLevel().getName()).isEqualTo("WARN"))
        .extracting(LogRecord::getMessage)
        .startsWith(
            "io.vertx.pgclient.PgException: FATAL: terminating connection (57P01)",
            "java.lang.IllegalStateException: a library's failure")
        .anyMatch(line -> line.startsWith("\tat io.fleetwave.controlplane.logging."));
  }

  @Test
  void withPlainTextLogsStderrIsLeftAlone() {
    PrintStream before = System.err;
    StandardErrorLines lines = new StandardErrorLines(false);
    lines.onStart(null);
    assertThat(System.err).isSameAs(before);
    lines.onStop(null);
    assertThat(System.err).isSameAs(before);
  }
}
