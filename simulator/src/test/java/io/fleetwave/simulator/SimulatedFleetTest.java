package io.fleetwave.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.simulator.fleet.FleetFile;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SimulatedFleetTest {

  @Test
  void startFailsWithinItsBoundWhenNoBrokerAnswers() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort(); // closed again: nothing listens there
    }
    String bootstrap = "127.0.0.1:" + port;
    long started = System.nanoTime();

    assertThatThrownBy(
            () ->
                SimulatedFleet.start(
                    FleetFile.bundledDemo(),
                    new SimulatedFleet.Settings(
                        bootstrap,
                        Duration.ofSeconds(10),
                        "fleet.node-events",
                        1,
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(2))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            "Kafka at " + bootstrap + " did not serve topic fleet.node-events within PT2S");

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
  }
}
