package io.fleetwave.agent.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** A run's epoch follows the last one without wrapping round (issue 32 finding 6). */
class NextEpochTest {
  private static final Clock NOW =
      Clock.fixed(Instant.parse("2026-12-04T12:00:00Z"), ZoneOffset.UTC);

  @Test
  void theEpochAfterTheLargestOneIsAClearErrorNotANegativeNumber() {
    assertThat(NodeEventStream.nextEpoch(Long.MAX_VALUE - 1, NOW)).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> NodeEventStream.nextEpoch(Long.MAX_VALUE, NOW))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the node's last epoch is " + Long.MAX_VALUE + ", the largest");
  }

  @Test
  void theClockWinsWhenItIsAheadOfTheLastEpoch() {
    assertThat(NodeEventStream.nextEpoch(5, NOW)).isEqualTo(NOW.millis());
  }
}
