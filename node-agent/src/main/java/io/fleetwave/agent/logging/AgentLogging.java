package io.fleetwave.agent.logging;

import java.util.Locale;
import java.util.Map;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Logger;

/**
 * Sets the agent's log format on java.util.logging's root handlers (the console): one line per
 * record, as text or as JSON. Called first thing in main, before anything logs.
 */
public final class AgentLogging {
  /** Environment variable choosing the format: {@code text} (default) or {@code json}. */
  public static final String FORMAT_VARIABLE = "FLEETWAVE_LOG_FORMAT";

  /** The two formats. */
  public enum Format {
    TEXT,
    JSON;

    Formatter formatter() {
      return this == JSON ? new JsonLineFormatter() : new TextLineFormatter();
    }
  }

  private AgentLogging() {}

  /**
   * The format the environment asks for.
   *
   * @throws IllegalArgumentException naming the variable and the value when it is neither
   */
  public static Format format(Map<String, String> env) {
    String value = env.getOrDefault(FORMAT_VARIABLE, "").strip();
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "", "text" -> Format.TEXT;
      case "json" -> Format.JSON;
      default ->
          throw new IllegalArgumentException(
              FORMAT_VARIABLE + " must be text or json, got '" + value + "'");
    };
  }

  /** Every root handler writes one line per record in {@code format}. */
  public static void configure(Format format) {
    for (Handler handler : Logger.getLogger("").getHandlers()) {
      handler.setFormatter(format.formatter());
    }
  }
}
