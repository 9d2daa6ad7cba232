package io.fleetwave.controlplane.logging;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.testsupport.logging.LogRecords;
import java.io.PrintStream;
import java.util.List;
import java.util.logging.LogRecord;
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
    List<LogRecord> records;
    StandardErrorLines lines = new StandardErrorLines(true);
    try (LogRecords stderr = new LogRecords("stderr")) {
      try {
        lines.onStart(null);
        assertThat(System.err).isNotSameAs(before);
        // What the Vert.x SQL client prints for a connection PostgreSQL ended, and a stack trace.
        System.err.println("io.vertx.pgclient.PgException: FATAL: terminating connection (57P01)");
        new IllegalStateException("a library's failure").printStackTrace();
      } finally {
        lines.onStop(null);
      }
      records = stderr.records();
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
