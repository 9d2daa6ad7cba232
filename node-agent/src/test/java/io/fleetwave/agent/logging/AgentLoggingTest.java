package io.fleetwave.agent.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** The two formats of the agent's log, one line per record each. */
class AgentLoggingTest {
  private static final Instant AT = Instant.parse("2026-11-30T22:40:01.123456Z");

  @Test
  void theFormatComesFromTheEnvironmentAndAnUnknownOneIsRefusedNamingIt() {
    assertThat(AgentLogging.format(Map.of())).isEqualTo(AgentLogging.Format.TEXT);
    assertThat(AgentLogging.format(Map.of("FLEETWAVE_LOG_FORMAT", "JSON")))
        .isEqualTo(AgentLogging.Format.JSON);
    assertThatThrownBy(() -> AgentLogging.format(Map.of("FLEETWAVE_LOG_FORMAT", "xml")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("FLEETWAVE_LOG_FORMAT must be text or json, got 'xml'");
  }

  @Test
  void aTextLineIsTimeLevelLoggerAndMessageOnOneLine() {
    String line =
        new TextLineFormatter()
            .format(record("node {0} event {1} seq={2}", "gpu-7", "Heartbeat", "42"));

    assertThat(line)
        .isEqualTo(
            "2026-11-30T22:40:01.123Z INFO  [events] node gpu-7 event Heartbeat seq=42"
                + System.lineSeparator());
  }

  @Test
  void aJsonLineCarriesTheMessageAndTheRecordsFields() throws Exception {
    String line =
        new JsonLineFormatter()
            .format(
                record(
                    "node {0} event {1} seq={2}",
                    "gpu-7",
                    "Heartbeat",
                    "42",
                    new LogFields(Map.of("node", "gpu-7", "event", "Heartbeat", "seq", 42L))));

    assertThat(line).endsWith(System.lineSeparator()).hasLineCount(1);
    JsonNode json = new ObjectMapper().readTree(line);
    assertThat(json.path("timestamp").asText()).isEqualTo("2026-11-30T22:40:01.123456Z");
    assertThat(json.path("level").asText()).isEqualTo("INFO");
    assertThat(json.path("logger").asText()).isEqualTo("io.fleetwave.agent.events");
    assertThat(json.path("message").asText()).isEqualTo("node gpu-7 event Heartbeat seq=42");
    assertThat(json.path("node").asText()).isEqualTo("gpu-7");
    assertThat(json.path("seq").asLong()).isEqualTo(42);
  }

  @Test
  void aJsonLineKeepsAnExceptionsStackTraceInOneField() throws Exception {
    LogRecord record = record("refused");
    record.setLevel(Level.SEVERE);
    record.setThrown(new IllegalStateException("broken\nacross lines"));

    String line = new JsonLineFormatter().format(record);

    assertThat(line).hasLineCount(1);
    JsonNode json = new ObjectMapper().readTree(line);
    assertThat(json.path("level").asText()).isEqualTo("ERROR");
    assertThat(json.path("exception").asText())
        .startsWith("java.lang.IllegalStateException: broken\nacross lines");
  }

  private static LogRecord record(String message, Object... parameters) {
    LogRecord record = new LogRecord(Level.INFO, message);
    record.setLoggerName("io.fleetwave.agent.events");
    record.setInstant(AT);
    record.setParameters(parameters);
    return record;
  }
}
