package io.fleetwave.systemtier;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The driver webhook's port, which the system tier must choose before the fleet binds it. */
class ReplicasTest {
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  @Test
  void theWebhookPortIsFreeAndBelowThePortsTheKernelHandsOut() throws IOException {
    int port = Replicas.freePort();

    if (Files.isReadable(EPHEMERAL_RANGE)) {
      int ephemeralStart =
          Integer.parseInt(Files.readAllLines(EPHEMERAL_RANGE).getFirst().split("\\s+", 2)[0]);
      assertThat(port).isBetween(10_000, ephemeralStart - 1);
    }
    try (ServerSocket bound = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThat(bound.getLocalPort()).isEqualTo(port);
    }
  }
}
