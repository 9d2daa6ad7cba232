package io.fleetwave.controlplane.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.command.ResetGpu;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CommandPublisherTest {
  @Test
  void anUnreachableBrokerIsA503WithinTheSendTimeout() {
    // Port 1 on loopback: nothing listens, so no acknowledgement can ever come.
    CommandPublisher publisher =
        new CommandPublisher(Map.of("bootstrap.servers", "127.0.0.1:1"), Duration.ofSeconds(2));
    Instant now = Instant.now();
    CommandEnvelope command =
        CommandEnvelope.of(
            URI.create("fleetwave:test"), "n", now, new ResetGpu(0, 1, now, now.plusSeconds(60)));
    long started = System.nanoTime();
    try {
      assertThatThrownBy(
              () ->
                  publisher
                      .send(Topics.NODE_COMMANDS, command)
                      .await()
                      .atMost(Duration.ofSeconds(10)))
          .isInstanceOfSatisfying(
              BrokerUnavailableException.class,
              e -> {
                assertThat(e.getMessage())
                    .contains("Kafka did not acknowledge")
                    .contains("node 'n'")
                    .contains("nothing was changed");
              });
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    } finally {
      publisher.close();
    }
  }
}
