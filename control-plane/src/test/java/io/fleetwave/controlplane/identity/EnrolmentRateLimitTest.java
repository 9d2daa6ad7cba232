package io.fleetwave.controlplane.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The enrolment buckets on a clock the test moves: the bound, the refill, the Retry-After. */
class EnrolmentRateLimitTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final EnrolmentRateLimit limit =
      new EnrolmentRateLimit(4, 2, Duration.ofSeconds(60), now::get);

  @Test
  void aSourceMayMakeItsBoundOfAttemptsThenWaitsForOneToRefill() {
    for (int i = 0; i < 4; i++) {
      limit.takeForSource("10.0.0.1");
    }
    EnrolmentThrottledException refused = refusedFor("10.0.0.1");
    // One attempt refills in a fourth of the minute.
    assertThat(refused.retryAfter().toMillis()).isBetween(14_999L, 15_000L);
    assertThat(refused.first()).isTrue();
    assertThat(refusedFor("10.0.0.1").first()).as("logged once per burst").isFalse();
    limit.takeForSource("10.0.0.2"); // another source has its own bucket

    now.addAndGet(Duration.ofMillis(15_001).toNanos());
    limit.takeForSource("10.0.0.1");
    assertThat(refusedFor("10.0.0.1").first()).isTrue();
  }

  @Test
  void anAttemptGivenBackByASuccessfulEnrolmentIsAvailableAgainButNeverBeyondTheBound() {
    for (int i = 0; i < 10; i++) {
      limit.takeForSource("10.0.0.1");
      limit.returnToSource("10.0.0.1");
    }
    limit.returnToSource("10.0.0.1");
    for (int i = 0; i < 4; i++) {
      limit.takeForSource("10.0.0.1");
    }
    assertThat(refusedFor("10.0.0.1").first()).isTrue();
  }

  @Test
  void aNodeHasItsOwnSmallerBoundWhateverTheSource() {
    limit.takeForNode("gpu-1");
    limit.takeForNode("gpu-1");
    assertThatThrownBy(() -> limit.takeForNode("gpu-1"))
        .isInstanceOf(EnrolmentThrottledException.class)
        .hasMessage(
            "too many enrolment attempts for node 'gpu-1': at most 2 per PT1M; try again later");
  }

  @Test
  void limitsBelowOneAreRefused() {
    assertThatThrownBy(() -> new EnrolmentRateLimit(0, 1, Duration.ofMinutes(1), now::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1");
  }

  private EnrolmentThrottledException refusedFor(String source) {
    try {
      limit.takeForSource(source);
    } catch (EnrolmentThrottledException e) {
      return e;
    }
    throw new AssertionError("source " + source + " was not refused");
  }
}
