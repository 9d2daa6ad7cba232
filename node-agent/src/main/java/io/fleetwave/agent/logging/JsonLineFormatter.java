package io.fleetwave.agent.logging;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/**
 * One JSON object per line: {@code timestamp}, {@code level}, {@code logger}, {@code thread},
 * {@code message}, the {@link LogFields} of the record (node, event, epoch, seq...) and {@code
 * exception} with its stack trace. Jackson is on the agent's path already (the event codec).
 */
final class JsonLineFormatter extends Formatter {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public String format(LogRecord record) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("timestamp", record.getInstant().toString());
    line.put("level", level(record));
    line.put("logger", record.getLoggerName());
    line.put("thread", Thread.currentThread().getName());
    line.put("message", formatMessage(record));
    Object[] parameters = record.getParameters();
    if (parameters != null
        && parameters.length > 0
        && parameters[parameters.length - 1] instanceof LogFields fields) {
      fields.fields().forEach(line::putIfAbsent);
    }
    if (record.getThrown() != null) {
      StringWriter trace = new StringWriter();
      record.getThrown().printStackTrace(new PrintWriter(trace));
      line.put("exception", trace.toString());
    }
    try {
      return JSON.writeValueAsString(line) + System.lineSeparator();
    } catch (IOException e) { // Jackson's JsonProcessingException: not expected for a map of text
      return "{\"level\":\"ERROR\",\"message\":\"log line not written as JSON: "
          + e.getClass().getSimpleName()
          + "\"}"
          + System.lineSeparator();
    }
  }

  /** System.Logger's level names (INFO, WARNING, ERROR, DEBUG...) for JUL's levels. */
  static String level(LogRecord record) {
    Level level = record.getLevel();
    if (level.intValue() >= Level.SEVERE.intValue()) {
      return "ERROR";
    }
    if (level.intValue() >= Level.WARNING.intValue()) {
      return "WARN";
    }
    if (level.intValue() >= Level.INFO.intValue()) {
      return "INFO";
    }
    return level.intValue() >= Level.FINE.intValue() ? "DEBUG" : "TRACE";
  }
}
