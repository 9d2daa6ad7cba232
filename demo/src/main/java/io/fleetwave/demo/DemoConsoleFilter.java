package io.fleetwave.demo;

import io.fleetwave.controlplane.logging.SqlPoolTimeoutEcho;
import io.quarkus.logging.LoggingFilter;
import java.util.List;
import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * The demo console's filter ({@code quarkus.log.console.filter}): the embedded broker's own logs,
 * and two start-up warnings that say nothing to the person who ran the demo, go to the log file
 * only; the SQL client pool's second failure of a query is dropped as on the control plane's own
 * console ({@link SqlPoolTimeoutEcho}: a handler takes one filter, and this is the console's).
 * Every other warning and error still reaches the console.
 */
@LoggingFilter(name = "demo-console")
public final class DemoConsoleFilter implements Filter {
  /**
   * The broker side of Kafka (the embedded broker); the control plane's clients are not here.
   * LogFutureTimestampLogger is the broker's UnifiedLog's (Kafka 4.1) for a segment it may not
   * delete yet: on a loaded machine it warned on the console before the banner.
   */
  private static final List<String> BROKER =
      List.of(
          "kafka.",
          "state.change.logger",
          "LogFutureTimestampLogger",
          "org.apache.kafka.controller.",
          "org.apache.kafka.raft.",
          "org.apache.kafka.server.",
          "org.apache.kafka.storage.",
          "org.apache.kafka.coordinator.",
          "org.apache.kafka.metadata.",
          "org.apache.kafka.image.",
          "org.apache.kafka.common.test.");

  /**
   * Known start-up warnings: Micrometer's when the reactive PostgreSQL client registers its queue
   * gauge once per event loop, and SmallRye's that the throttled commit strategy has no health
   * check of its own (the control plane's readiness checks Kafka itself: KafkaReachability).
   */
  private static final List<String> KNOWN =
      List.of("This Gauge has been already registered (MeterId{name='postgresql.", "SRMSG18235");

  private final SqlPoolTimeoutEcho sqlPoolEcho = new SqlPoolTimeoutEcho();

  @Override
  public boolean isLoggable(LogRecord record) {
    if (!sqlPoolEcho.isLoggable(record)) {
      return false;
    }
    String logger = record.getLoggerName() == null ? "" : record.getLoggerName();
    if (BROKER.stream().anyMatch(logger::startsWith)) {
      return false;
    }
    String message = record.getMessage() == null ? "" : record.getMessage();
    return KNOWN.stream().noneMatch(message::startsWith);
  }
}
