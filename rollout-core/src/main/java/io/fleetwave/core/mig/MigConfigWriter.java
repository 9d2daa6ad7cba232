package io.fleetwave.core.mig;

import java.util.Map;
import java.util.stream.Collectors;

/**
 * Writes configs back in the mig-parted v1 format, so users get out what they brought in (e.g.
 * {@code GET /api/v1/mig-configs/{name}} as YAML, or a file for mig-parted itself).
 */
public final class MigConfigWriter {
  private MigConfigWriter() {}

  public static String write(Iterable<MigConfig> configs) {
    StringBuilder out = new StringBuilder("version: v1\nmig-configs:\n");
    for (MigConfig config : configs) {
      out.append("  ").append(quote(config.name())).append(":\n");
      for (MigConfigEntry entry : config.entries()) {
        String lead = "    - ";
        if (!entry.deviceFilter().isEmpty()) {
          out.append(lead)
              .append("device-filter: ")
              .append(
                  entry.deviceFilter().stream()
                      .map(f -> quote(f.toString()))
                      .collect(Collectors.joining(", ", "[", "]")))
              .append('\n');
          lead = "      ";
        }
        out.append(lead).append("devices: ").append(devices(entry.devices())).append('\n');
        out.append("      mig-enabled: ").append(entry.migEnabled()).append('\n');
        if (entry.migEnabled()) {
          out.append("      mig-devices: ").append(counts(entry.migDevices())).append('\n');
        }
      }
    }
    return out.toString();
  }

  private static String devices(DeviceSelection devices) {
    return switch (devices) {
      case DeviceSelection.All all -> "all";
      case DeviceSelection.Indices indices ->
          indices.indices().stream()
              .map(String::valueOf)
              .collect(Collectors.joining(", ", "[", "]"));
    };
  }

  private static String counts(Map<String, Integer> counts) {
    return counts.entrySet().stream()
        .map(e -> quote(e.getKey()) + ": " + e.getValue())
        .collect(Collectors.joining(", ", "{", "}"));
  }

  private static String quote(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
