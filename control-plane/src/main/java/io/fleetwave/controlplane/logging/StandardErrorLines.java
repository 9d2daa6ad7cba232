package io.fleetwave.controlplane.logging;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * With JSON logs on ({@code QUARKUS_LOG_CONSOLE_JSON_ENABLED=true}, as the Deployment runs), what a
 * library prints to stderr is logged instead, one WARN record a line (logger {@code stderr}), so
 * that the console stays one JSON object a line for the log pipeline that reads it. The Vert.x SQL
 * client prints a connection's end to stderr where the connection has no exception handler (a
 * connection PostgreSQL ends at its stop, {@code FATAL ... 57P01}, between its checkout and the
 * handler database.Connections sets). The JVM's own warnings before the start and anything printed
 * after the stop go to stderr as before; so does a line printed while logging itself prints one (no
 * loop).
 */
@ApplicationScoped
public class StandardErrorLines {
  private static final Logger LOG = Logger.getLogger("stderr");

  private final boolean json;
  private PrintStream original;

  public StandardErrorLines(
      @ConfigProperty(name = "quarkus.log.console.json.enabled", defaultValue = "false")
          boolean json) {
    this.json = json;
  }

  void onStart(@Observes StartupEvent started) {
    if (json) {
      original = System.err;
      System.setErr(new PrintStream(new Lines(original), true, StandardCharsets.UTF_8));
    }
  }

  void onStop(@Observes ShutdownEvent stopping) {
    if (original != null) {
      System.setErr(original);
    }
  }

  /** Bytes up to each newline, logged as one record; a record logged while logging, printed. */
  private static final class Lines extends OutputStream {
    private static final ThreadLocal<Boolean> LOGGING = ThreadLocal.withInitial(() -> false);
    private final PrintStream original;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    Lines(PrintStream original) {
      this.original = original;
    }

    @Override
    public synchronized void write(int b) {
      if (b == '\n') {
        flushLine();
      } else {
        line.write(b);
      }
    }

    @Override
    public synchronized void flush() {
      // A line is logged whole at its newline; PrintStream's flushes in between keep it whole.
    }

    @Override
    public synchronized void close() {
      flushLine();
    }

    private void flushLine() {
      String text = line.toString(StandardCharsets.UTF_8);
      line.reset();
      if (text.isBlank()) {
        return;
      }
      if (LOGGING.get()) {
        original.println(text);
        return;
      }
      LOGGING.set(true);
      try {
        LOG.warn(text.stripTrailing());
      } finally {
        LOGGING.set(false);
      }
    }
  }
}
