package io.fleetwave.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A port a server is told before it binds it: free, and below the ports the kernel hands out. */
class LoopbackPortsTest {
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  @Test
  void thePortIsFreeAndBelowThePortsTheKernelHandsOut() throws IOException {
    int port = LoopbackPorts.belowTheEphemeralRange();

    if (Files.isReadable(EPHEMERAL_RANGE)) {
      int ephemeralStart =
          Integer.parseInt(Files.readAllLines(EPHEMERAL_RANGE).getFirst().split("\\s+", 2)[0]);
      assertThat(LoopbackPorts.ephemeralRangeStart()).isEqualTo(ephemeralStart);
      assertThat(port).isBetween(10_000, ephemeralStart - 1);
    }
    try (ServerSocket bound = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThat(bound.getLocalPort()).isEqualTo(port);
    }
  }
}
