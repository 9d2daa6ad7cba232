package io.fleetwave.demo;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * What the person who ran {@code ./fleetwave demo} sees: a line saying where the logs go, then, at
 * ready, a short banner (URL, tokens, sign-in link, health and metrics, the log file) as the last
 * lines. The broker's, the database's and Quarkus' own logs go to that file (the demo's
 * application.properties: console at WARN, file at INFO), not to the console.
 */
final class DemoConsole {
  static final String LOG_FILE = "quarkus.log.file.path";
  private static final String LOG_FILE_ENV = "QUARKUS_LOG_FILE_PATH";
  static final String MANAGEMENT_PORT = "quarkus.management.port";

  private DemoConsole() {}

  /**
   * Chooses what the caller left open: the log file, named after the HTTP port (two demos never
   * share one; Quarkus keeps the previous run's as a backup), or after the process where the system
   * picks the port (0); and a management port the system picks as Quarkus binds it, so that two
   * demos with different {@code --port} do not both claim the control plane's default 9000. A port
   * found free here and bound later could be taken in between by another process, and the demo
   * would not start. The log file is printed now, the management port in the banner.
   */
  static void configure(Map<String, String> env, Properties system) {
    if (!env.containsKey(LOG_FILE_ENV) && !system.containsKey(LOG_FILE)) {
      String port =
          system.getProperty("quarkus.http.port", env.getOrDefault("QUARKUS_HTTP_PORT", "8080"));
      String name = port.equals("0") ? "pid-" + ProcessHandle.current().pid() : port;
      Path file = Path.of(System.getProperty("java.io.tmpdir"), "fleetwave-demo-" + name + ".log");
      system.setProperty(LOG_FILE, file.toString());
    }
    if (!env.containsKey("QUARKUS_MANAGEMENT_PORT") && !system.containsKey(MANAGEMENT_PORT)) {
      system.setProperty(MANAGEMENT_PORT, "0");
    }
    System.out.println(
        "fleetwave demo: starting; the logs of Kafka, PostgreSQL and the control plane go to "
            + logFile(env, system).orElseThrow());
  }

  /** The log file the console named at start, if one is set. */
  static Optional<Path> logFile(Map<String, String> env, Properties system) {
    return Optional.ofNullable(system.getProperty(LOG_FILE, env.get(LOG_FILE_ENV))).map(Path::of);
  }

  /** The lines printed once the demo is ready, the tokens' among them when the demo made them. */
  static String banner(URI base, Optional<DemoIdentity> identity) {
    var config = ConfigProvider.getConfig();
    // Once Quarkus has bound it, the configuration answers with the port bound, 0 included.
    int management = config.getOptionalValue(MANAGEMENT_PORT, Integer.class).orElse(9000);
    URI health = URI.create("http://" + base.getHost() + ":" + management + "/q/health");
    List<String> lines = new ArrayList<>();
    lines.add("Fleetwave is ready: " + base);
    identity.ifPresent(id -> lines.add(id.announcement(base)));
    lines.add("health and metrics: " + health + "  " + health.resolve("/q/metrics"));
    config
        .getOptionalValue(LOG_FILE, String.class)
        .ifPresent(file -> lines.add("logs (Kafka, PostgreSQL, control plane): " + file));
    lines.add("Ctrl-C stops the demo.");
    return String.join(System.lineSeparator(), lines);
  }
}
