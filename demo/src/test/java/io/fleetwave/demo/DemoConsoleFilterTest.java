package io.fleetwave.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** The demo console keeps the embedded broker's warnings in the log file, and shows the rest. */
class DemoConsoleFilterTest {
  private final DemoConsoleFilter filter = new DemoConsoleFilter();

  @Test
  void theBrokersWarningsStayInTheLogFile() {
    // Kafka 4.1's UnifiedLog, under a logger name of its own, outside the broker's packages.
    assertThat(
            filter.isLoggable(
                warning(
                    "LogFutureTimestampLogger",
                    "LogSegment(baseOffset=0) contains future timestamp(s), making it ineligible"
                        + " to be deleted")))
        .isFalse();
    assertThat(filter.isLoggable(warning("kafka.server.ReplicaManager", "a broker warning")))
        .isFalse();
  }

  @Test
  void theControlPlanesAndTheKafkaClientsWarningsReachTheConsole() {
    assertThat(
            filter.isLoggable(
                warning("io.fleetwave.controlplane.projection.NodeEventsConsumer", "a warning")))
        .isTrue();
    assertThat(
            filter.isLoggable(
                warning("org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "x")))
        .isTrue();
  }

  private static LogRecord warning(String logger, String message) {
    LogRecord record = new LogRecord(Level.WARNING, message);
    record.setLoggerName(logger);
    return record;
  }
}
