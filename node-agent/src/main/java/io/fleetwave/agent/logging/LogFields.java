package io.fleetwave.agent.logging;

import java.util.Map;

/**
 * Fields of a log line beyond its message (node, event, epoch, seq...), passed as the record's last
 * parameter: the message does not reference it, the JSON format writes each field.
 */
public record LogFields(Map<String, Object> fields) {
  public LogFields {
    fields = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(fields));
  }
}
