package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DriverWaitTest {
  @Test
  void retriesDoubleFromOneSecondUpToTheCap() {
    Duration cap = Duration.ofSeconds(60);
    assertThat(
            java.util.stream.IntStream.rangeClosed(1, 9)
                .mapToObj(attempt -> DriverWait.delay(attempt, cap).toSeconds())
                .toList())
        .containsExactly(1L, 2L, 4L, 8L, 16L, 32L, 60L, 60L, 60L);
    assertThat(DriverWait.delay(10_000, cap)).isEqualTo(cap);
    assertThat(DriverWait.delay(5, Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(1));
  }
}
