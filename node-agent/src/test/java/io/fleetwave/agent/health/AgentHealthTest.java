package io.fleetwave.agent.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.testfixtures.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The probes' answers from the agent's milestones and loops, on a clock the test moves. */
class AgentHealthTest {
  private static final Instant T0 = Instant.parse("2026-12-04T20:00:00Z");

  private final ManualClock clock = new ManualClock(T0);
  private final AgentHealth health = new AgentHealth(clock);
  private final AtomicReference<Instant> tick = new AtomicReference<>(T0);
  private final AtomicReference<Optional<Instant>> acknowledged =
      new AtomicReference<>(Optional.empty());

  @Test
  void theLivenessBoundIsThreeHeartbeatIntervalsAndNeverLessThanThirtySeconds() {
    assertThat(AgentHealth.heartbeatBound(Duration.ofSeconds(10))).hasSeconds(30);
    assertThat(AgentHealth.heartbeatBound(Duration.ofSeconds(20))).hasSeconds(60);
    assertThat(AgentHealth.heartbeatBound(Duration.ofSeconds(1)))
        .as("a GC pause on a busy node is not a hang, however short the interval")
        .hasSeconds(30);
    assertThatThrownBy(() -> AgentHealth.heartbeatBound(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("heartbeat interval must be positive");
  }

  @Test
  void livenessFailsOnlyOnceTheHeartbeatLoopMissedItsBound() {
    health.running(tick::get, acknowledged::get, Duration.ofSeconds(20));

    clock.set(T0.plusSeconds(60));
    assertThat(health.liveness().ok()).as("exactly at the bound (3 x 20 s)").isTrue();
    assertThat(health.liveness().reason()).isEqualTo("alive: the heartbeat loop ticked 60.0 s ago");

    clock.set(T0.plusSeconds(60).plusMillis(1));
    Verdict stuck = health.liveness();
    assertThat(stuck.ok()).isFalse();
    assertThat(stuck.httpStatus()).isEqualTo(503);
    assertThat(stuck.reason())
        .isEqualTo(
            "stuck: the heartbeat loop has not ticked for 60.001 s (bound 60.0 s: 3 intervals"
                + " of 20.0 s, at least 30.0 s)");

    tick.set(T0.plusSeconds(59));
    assertThat(health.liveness().ok()).as("a tick brings it back").isTrue();
  }

  @Test
  void livenessIgnoresKafkaTheEnrolmentAndTheStart() {
    assertThat(health.liveness().ok()).as("before the run: the startup probe's phase").isTrue();
    health.enrolling("http://cp:8080");
    health.running(tick::get, acknowledged::get, Duration.ofSeconds(10));
    clock.set(T0.plusSeconds(3600));
    tick.set(T0.plusSeconds(3595));
    assertThat(health.readiness().ok()).isFalse();
    assertThat(health.liveness().ok())
        .as("an hour without enrolment or acknowledgement, the loop still ticking")
        .isTrue();
  }

  @Test
  void readinessNeedsTheEnrolmentThenAFirstAcknowledgementThenARecentOne() {
    assertThat(health.readiness().reason()).isEqualTo("not ready: not enrolled yet");
    health.enrolling("http://cp:8080");
    assertThat(health.readiness().reason())
        .isEqualTo("not ready: not enrolled yet: enrolling with http://cp:8080");
    assertThat(health.startup().reason()).isEqualTo("starting: enrolling with http://cp:8080");

    health.enrolled("sha256:abc", "http://cp:8080");
    assertThat(health.readiness().reason())
        .isEqualTo(
            "not ready: enrolled (key sha256:abc with http://cp:8080); starting: preparing the run");
    assertThat(health.startup()).isEqualTo(new Verdict(false, "starting: preparing the run"));

    health.running(tick::get, acknowledged::get, Duration.ofSeconds(10));
    Verdict unacknowledged = health.readiness();
    assertThat(unacknowledged.ok()).isFalse();
    assertThat(unacknowledged.reason())
        .isEqualTo(
            "not ready: enrolled (key sha256:abc with http://cp:8080), but Kafka has acknowledged"
                + " no event of this run yet");

    acknowledged.set(Optional.of(T0.plusSeconds(1)));
    clock.set(T0.plusSeconds(31));
    assertThat(health.readiness())
        .isEqualTo(
            new Verdict(
                true,
                "ready: enrolled (key sha256:abc with http://cp:8080) and publishing (last event"
                    + " acknowledged 30.0 s ago)"));

    clock.set(T0.plusSeconds(31).plusMillis(1));
    assertThat(health.readiness())
        .isEqualTo(
            new Verdict(
                false,
                "not ready: enrolled (key sha256:abc with http://cp:8080), but Kafka has"
                    + " acknowledged no event for 30.001 s (bound 30.0 s); events wait in the"
                    + " outbox"));
  }

  @Test
  void withoutAControlPlaneReadinessIsPublishingAlone() {
    health.enrolmentNotConfigured("no --control-plane: events unsigned");
    health.running(tick::get, acknowledged::get, Duration.ofSeconds(10));
    acknowledged.set(Optional.of(T0));
    assertThat(health.readiness())
        .isEqualTo(
            new Verdict(
                true,
                "ready: enrolment not configured (no --control-plane: events unsigned) and"
                    + " publishing (last event acknowledged 0.0 s ago)"));
  }

  @Test
  void startupTellsThePhaseUntilTheStartIsOver() {
    health.starting("enrolling");
    assertThat(health.startup()).isEqualTo(new Verdict(false, "starting: enrolling"));
    assertThatThrownBy(() -> health.started("too early"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("before the run exists");

    health.running(tick::get, acknowledged::get, Duration.ofSeconds(10));
    health.started("waiting for the driver (libnvidia-ml.so.1 not found\n under /run/nvidia)");
    assertThat(health.startup())
        .as("one line, whatever the reason quoted")
        .isEqualTo(
            new Verdict(
                true,
                "started: waiting for the driver (libnvidia-ml.so.1 not found under"
                    + " /run/nvidia)"));
    assertThat(health.check(Probe.STARTUP)).isEqualTo(health.startup());
  }
}
