package io.fleetwave.agent.hostclients;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;

/**
 * A real dbus-daemon listening on a socket inside a test host tree, so tests talk the real wire
 * protocol. Skipped (with the reason) where dbus-daemon is not installed.
 */
public record PrivateBus(Process daemon, Path socket) implements AutoCloseable {
  public static PrivateBus start(Path socket) {
    Path binary = Path.of("/usr/bin/dbus-daemon");
    assumeTrue(Files.isExecutable(binary), "dbus-daemon is not installed at " + binary);
    try {
      Files.createDirectories(socket.getParent());
      Path config = socket.resolveSibling("bus.conf");
      Files.writeString(
          config,
          """
          <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
           "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
          <busconfig>
            <type>session</type>
            <listen>unix:path=%s</listen>
            <auth>EXTERNAL</auth>
            <policy context="default">
              <allow send_destination="*" eavesdrop="true"/>
              <allow eavesdrop="true"/>
              <allow own="*"/>
            </policy>
          </busconfig>
          """
              .formatted(socket));
      Process daemon =
          new ProcessBuilder(
                  binary.toString(), "--config-file=" + config, "--nofork", "--nopidfile")
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      Awaitility.await("dbus-daemon listening on " + socket)
          .atMost(Duration.ofSeconds(10))
          .until(() -> Files.exists(socket) || !daemon.isAlive());
      if (!daemon.isAlive()) {
        throw new IllegalStateException("dbus-daemon exited with " + daemon.exitValue());
      }
      return new PrivateBus(daemon, socket);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String address() {
    return "unix:path=" + socket;
  }

  @Override
  public void close() {
    daemon.destroy();
    try {
      if (!daemon.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
        daemon.destroyForcibly();
      }
    } catch (InterruptedException e) {
      // Not rethrown (try-with-resources would hide it behind the body's exception); the
      // caller still sees the interruption.
      Thread.currentThread().interrupt();
    }
  }
}
