package io.fleetwave.controlplane.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DeadlineTest {
  @Test
  void aStageWithinTheBoundGetsTheTimeLeft() {
    Deadline<IllegalStateException> deadline =
        new Deadline<>(Duration.ofMinutes(5), IllegalStateException::new);
    assertThat(deadline.remaining("reading"))
        .isPositive()
        .isLessThanOrEqualTo(Duration.ofMinutes(5));
    assertThat(deadline.total()).isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void aStageAskingPastTheEndFailsWithTheOwnersExceptionNamingIt() {
    Deadline<IllegalStateException> deadline =
        new Deadline<>(Duration.ZERO, stage -> new IllegalStateException("over (" + stage + ")"));
    assertThatThrownBy(() -> deadline.remaining("comparing"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("over (comparing)");
    assertThat(deadline.expired("Kafka: timed out")).hasMessage("over (Kafka: timed out)");
  }
}
