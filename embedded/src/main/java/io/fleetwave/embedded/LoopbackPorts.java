package io.fleetwave.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for a server that must be told its port before it binds it (PostgreSQL, which cannot take
 * port 0 and say; a webhook its callers are configured with), taken below the kernel's ephemeral
 * range: a port of that range found free can be handed to any outgoing connection, or to another
 * process's port-0 bind, in the seconds before the server binds it (a suite failed on PostgreSQL's
 * "could not bind IPv4 address ... Address already in use"); below it only an explicit bind takes
 * it.
 */
public final class LoopbackPorts {
  /** Above the well-known and registered ports that services on a build machine use. */
  public static final int LOWEST = 10_000;

  private static final int DEFAULT_EPHEMERAL_START = 32_768;
  private static final int ATTEMPTS = 100;

  private LoopbackPorts() {}

  /**
   * A port from {@link #LOWEST} to below {@link #ephemeralRangeStart()} that nothing holds on the
   * loopback address now.
   *
   * @throws IllegalStateException when the kernel's range leaves none, or none is free
   */
  public static int belowTheEphemeralRange() {
    int ephemeralStart = ephemeralRangeStart();
    if (ephemeralStart <= LOWEST) {
      throw new IllegalStateException(
          "the kernel hands out ports from %d (ip_local_port_range): none left below it above %d"
              .formatted(ephemeralStart, LOWEST));
    }
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, ephemeralStart);
      try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return socket.getLocalPort();
      } catch (BindException taken) {
        // in use: another
      } catch (IOException e) {
        throw new UncheckedIOException("cannot try port " + port + " on the loopback address", e);
      }
    }
    throw new IllegalStateException(
        "no free port from %d to %d after %d attempts"
            .formatted(LOWEST, ephemeralStart - 1, ATTEMPTS));
  }

  /** Where Linux starts handing out ports to connections and port-0 binds (32768 by default). */
  public static int ephemeralRangeStart() {
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    if (!Files.isReadable(range)) {
      return DEFAULT_EPHEMERAL_START;
    }
    try {
      // Lines, not readString: readString gave "3" for this file, whose size procfs gives as 0
      // (checked on JDK 25.0.3, Linux 6.18).
      return Integer.parseInt(Files.readAllLines(range).getFirst().trim().split("\\s+", 2)[0]);
    } catch (IOException | RuntimeException e) {
      return DEFAULT_EPHEMERAL_START;
    }
  }
}
