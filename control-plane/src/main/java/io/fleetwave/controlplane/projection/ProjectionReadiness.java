package io.fleetwave.controlplane.projection;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness of the projection: DOWN with the reason while it waits for PostgreSQL or Kafka, so that
 * a replica whose reads are stale stops receiving traffic. Deliberately not a liveness check: the
 * projection resumes by itself when the service is back, and a restart would not bring it back
 * sooner.
 */
@Readiness
@ApplicationScoped
public class ProjectionReadiness implements HealthCheck {
  static final String NAME = "fleetwave-projection";

  private final ProjectionOutage outage;

  public ProjectionReadiness(ProjectionOutage outage) {
    this.outage = outage;
  }

  @Override
  public HealthCheckResponse call() {
    return outage
        .current()
        .map(
            wait ->
                HealthCheckResponse.named(NAME)
                    .down()
                    .withData("reason", wait.reason())
                    .withData("failedAttempts", wait.attempts())
                    .build())
        .orElseGet(() -> HealthCheckResponse.up(NAME));
  }
}
