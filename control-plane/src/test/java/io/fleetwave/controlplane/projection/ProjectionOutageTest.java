package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class ProjectionOutageTest {
  private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");

  /** A clock the test moves. */
  private static final class ManualClock extends Clock {
    Instant now = T0;

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  private final ManualClock clock = new ManualClock();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ProjectionOutage outage = new ProjectionOutage(registry, clock);

  @Test
  void aWaitKeepsItsStartAndTheLatestCauseAcrossAttempts() {
    outage.failed("PostgreSQL", new ConnectException("Connection refused: db/10.0.0.5:5432"));
    clock.now = T0.plusSeconds(30);
    outage.failed("PostgreSQL", new ConnectException("Connection refused: db/10.0.0.6:5432"));

    ProjectionOutage.Wait wait = outage.current().orElseThrow();
    assertThat(wait.attempts()).isEqualTo(2);
    assertThat(wait.reason())
        .isEqualTo(
            "projection waiting for PostgreSQL since 2026-11-30T12:00:00Z:"
                + " ConnectException: Connection refused: db/10.0.0.6:5432");
    assertThat(registry.get("fleetwave.projection.waiting").gauge().value()).isEqualTo(30.0);
  }

  @Test
  void aSuccessEndsTheWaitAndTheGaugeReturnsToZero() {
    outage.failed("PostgreSQL", new ConnectException("Connection refused"));
    clock.now = T0.plus(Duration.ofSeconds(61));
    outage.resumed();

    assertThat(outage.current()).isEmpty();
    assertThat(registry.get("fleetwave.projection.waiting").gauge().value()).isZero();
  }

  @Test
  void readinessIsDownWithTheReasonOnlyWhileWaiting() {
    ProjectionReadiness readiness = new ProjectionReadiness(outage);
    assertThat(readiness.call().getStatus().name()).isEqualTo("UP");

    outage.failed("PostgreSQL", new ConnectException("Connection refused"));
    var down = readiness.call();
    assertThat(down.getStatus().name()).isEqualTo("DOWN");
    assertThat(down.getData().orElseThrow().get("reason"))
        .isEqualTo(
            "projection waiting for PostgreSQL since 2026-11-30T12:00:00Z:"
                + " ConnectException: Connection refused");

    outage.resumed();
    assertThat(readiness.call().getStatus().name()).isEqualTo("UP");
  }
}
