package io.fleetwave.controlplane.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a bench ran with, printed next to its figures, so that a figure is never read without the
 * settings that make it comparable: whether node events were signed, the durability PostgreSQL
 * reports for itself (asked, not assumed), the bench's sizes, warm-up and probe counts, the
 * machine's cores and its load average at the time of printing.
 */
final class BenchConditions {
  private static final String[] DURABILITY = {"fsync", "synchronous_commit", "full_page_writes"};

  private final Map<String, String> settings = new LinkedHashMap<>();

  private BenchConditions() {}

  /** Node events as the bench published them ({@link BenchKeys#describe()} or why not). */
  static BenchConditions of(String nodeEvents, Connection db) throws SQLException {
    BenchConditions conditions = new BenchConditions();
    conditions.settings.put("node events", nodeEvents);
    conditions.settings.put("PostgreSQL", durability(db));
    return conditions;
  }

  /** A bench setting (a size, a warm-up, a probe count), in the order printed. */
  BenchConditions with(String name, Object value) {
    settings.put(name, String.valueOf(value));
    return this;
  }

  /** The settings, then the machine as it is now, one per line, indented for a report. */
  String text() {
    StringBuilder text = new StringBuilder("  ran with:\n");
    settings.forEach((name, value) -> text.append("    %-22s %s%n".formatted(name, value)));
    text.append(
        "    %-22s %d cores, load average %s (1, 5, 15 min, at this report)%n"
            .formatted("machine", Runtime.getRuntime().availableProcessors(), loadAverage()));
    return text.toString();
  }

  /** The durability settings as the server measured reports them. */
  private static String durability(Connection db) throws SQLException {
    StringBuilder text = new StringBuilder();
    try (Statement statement = db.createStatement()) {
      for (String setting : DURABILITY) {
        try (ResultSet row = statement.executeQuery("SHOW " + setting)) {
          row.next();
          text.append(text.isEmpty() ? "" : ", ")
              .append(setting)
              .append('=')
              .append(row.getString(1));
        }
      }
    }
    return text.append(" (SHOW on the server measured)").toString();
  }

  /** The first three fields of /proc/loadavg. */
  static String loadAverage() {
    try {
      String line = Files.readString(Path.of("/proc/loadavg")).strip();
      // "0.52 0.61 0.70 2/345 6789": the three averages, then the run queue.
      return line.substring(0, line.indexOf(' ', line.indexOf(' ', line.indexOf(' ') + 1) + 1));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the load average from /proc/loadavg", e);
    }
  }
}
