package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.database.DatabaseFailures;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * Whether the projection is waiting for a service it cannot do without (PostgreSQL for its writes,
 * Kafka for its dead letters), since when and why. One log line when a wait starts and one when it
 * ends, however many attempts lie between; readiness reports the wait ({@link ProjectionReadiness})
 * and {@code fleetwave_projection_waiting_seconds} measures it.
 */
@Startup
@ApplicationScoped
public class ProjectionOutage {
  private static final Logger LOG = Logger.getLogger(ProjectionOutage.class);

  /** One wait: for what, since when, the latest attempt's failure and how many attempts failed. */
  public record Wait(String service, Instant since, String cause, long attempts) {
    /** The readiness reason. */
    public String reason() {
      return "projection waiting for " + service + " since " + since + ": " + cause;
    }
  }

  private final Clock clock;
  private final AtomicReference<Wait> current = new AtomicReference<>();

  @Inject
  public ProjectionOutage(MeterRegistry registry) {
    this(registry, Clock.systemUTC());
  }

  ProjectionOutage(MeterRegistry registry, Clock clock) {
    this.clock = clock;
    Gauge.builder("fleetwave.projection.waiting", current, wait -> waitingSeconds(wait, clock))
        .description(
            "How long the projection has been waiting for PostgreSQL or Kafka (0 when it is not)")
        .baseUnit("seconds")
        .register(registry);
  }

  /** An attempt that needs {@code service} failed; it will be tried again. */
  public void failed(String service, Throwable failure) {
    String cause = DatabaseFailures.summary(failure);
    Wait before =
        current.getAndUpdate(
            wait ->
                wait == null || !wait.service().equals(service)
                    ? new Wait(service, clock.instant(), cause, 1)
                    : new Wait(service, wait.since(), cause, wait.attempts() + 1));
    if (before == null || !before.service().equals(service)) {
      LOG.warnf(
          "projection waiting for %s: %s; it retries the same batch with backoff, commits nothing"
              + " meanwhile and resumes by itself",
          service, cause);
    }
  }

  /** An attempt succeeded (or the service answered): any wait is over. */
  public void resumed() {
    Wait ended = current.getAndSet(null);
    if (ended != null) {
      Duration waited = Duration.between(ended.since(), clock.instant());
      LOG.infof(
          "projection resumed: %s is back after %.1f s (%d failed attempts); last cause: %s",
          ended.service(), waited.toMillis() / 1000.0, ended.attempts(), ended.cause());
    }
  }

  public Optional<Wait> current() {
    return Optional.ofNullable(current.get());
  }

  // Static, on the state it reads: the gauge holds no reference to a half-built bean.
  private static double waitingSeconds(AtomicReference<Wait> current, Clock clock) {
    Wait wait = current.get();
    return wait == null ? 0 : Duration.between(wait.since(), clock.instant()).toMillis() / 1000.0;
  }
}
