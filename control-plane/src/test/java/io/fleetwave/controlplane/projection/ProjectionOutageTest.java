package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.testfixtures.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ProjectionOutageTest {
  private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");

  private final ManualClock clock = new ManualClock(T0);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ProjectionOutage outage = new ProjectionOutage(registry, clock);

  @Test
  void aWaitKeepsItsStartAndTheLatestCauseAcrossAttempts() {
    outage.failed("PostgreSQL", new ConnectException("Connection refused: db/10.0.0.5:5432"));
    clock.set(T0.plusSeconds(30));
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
    clock.set(T0.plus(Duration.ofSeconds(61)));
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
