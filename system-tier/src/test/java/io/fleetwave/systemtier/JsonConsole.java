package io.fleetwave.systemtier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A control plane replica's console as the shipped Deployment writes it ({@code
 * QUARKUS_LOG_CONSOLE_JSON_ENABLED=true}, deploy/control-plane/deployment.yaml): one JSON object
 * per line, the node and the rollout a line is about in its {@code mdc}.
 */
final class JsonConsole {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> ERRORS = Set.of("ERROR", "FATAL", "SEVERE");
  private static final Set<String> WARNINGS = Set.of("WARN", "WARNING");

  private JsonConsole() {}

  /** One line of the console: its level, logger, thread, message and MDC. */
  record Line(String level, String logger, String thread, String message, JsonNode mdc) {
    /** The MDC's {@code key}, null where the line has none. */
    String mdc(String key) {
      return mdc.path(key).asText(null);
    }

    boolean error() {
      return ERRORS.contains(level);
    }

    boolean warning() {
      return WARNINGS.contains(level);
    }

    @Override
    public String toString() {
      return "%s %s [%s] %s %s".formatted(level, logger, thread, message, mdc);
    }
  }

  /**
   * Every line of {@code log} written whole (a replica writing, or SIGKILLed, may have left its
   * last line unfinished), each parsed; fails naming the first line that is not a JSON object. The
   * JVM's own warnings ({@code WARNING: ...} on stderr, before any logging is set up) are no
   * logger's and are left out.
   */
  static List<Line> read(Path log) throws IOException {
    String text = new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
    List<Line> lines = new ArrayList<>();
    String whole = text.substring(0, Math.max(0, text.lastIndexOf('\n')));
    for (String line : whole.lines().toList()) {
      if (line.isBlank() || line.startsWith("WARNING: ")) {
        continue;
      }
      JsonNode node;
      try {
        node = JSON.readTree(line);
      } catch (IOException notJson) {
        throw new AssertionError(
            "a console line of " + log + " that is not JSON: " + line, notJson);
      }
      if (!node.isObject()) {
        throw new AssertionError("a console line of " + log + " that is no JSON object: " + line);
      }
      lines.add(
          new Line(
              node.path("level").asText(),
              node.path("loggerName").asText(),
              node.path("threadName").asText(),
              node.path("message").asText(),
              node.path("mdc")));
    }
    return lines;
  }

  /** How many lines of {@code log} match {@code which}. */
  static long count(Path log, Predicate<Line> which) throws IOException {
    return read(log).stream().filter(which).count();
  }

  /** Lines whose message contains {@code text}. */
  static Predicate<Line> saying(String text) {
    return line -> line.message().contains(text);
  }
}
