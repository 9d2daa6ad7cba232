package io.fleetwave.agent.host;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The key=value pairs of an os-release file (quotes removed, comments skipped). */
public record OsRelease(Map<String, String> values) {

  public OsRelease {
    values = Map.copyOf(values);
  }

  public static OsRelease parse(String text) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String raw : text.lines().toList()) {
      String line = raw.strip();
      int eq = line.indexOf('=');
      if (line.isEmpty() || line.startsWith("#") || eq <= 0) {
        continue;
      }
      values.put(line.substring(0, eq), unquote(line.substring(eq + 1).strip()));
    }
    return new OsRelease(values);
  }

  public Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key)).filter(v -> !v.isBlank());
  }

  private static String unquote(String value) {
    if (value.length() >= 2
        && ((value.startsWith("\"") && value.endsWith("\""))
            || (value.startsWith("'") && value.endsWith("'")))) {
      return value.substring(1, value.length() - 1);
    }
    return value;
  }
}
