package io.fleetwave.controlplane.kafka;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness of the Kafka cluster: DOWN with the reason ({@code Kafka unreachable since ...}) while
 * it does not answer, so a Service stops routing to a replica that can neither publish specs nor
 * see the fleet's news. Deliberately not a liveness check: every client reconnects by itself, and a
 * restart would not bring the broker back sooner.
 */
@Readiness
@ApplicationScoped
public class KafkaReadiness implements HealthCheck {
  static final String NAME = "fleetwave-kafka";

  private final KafkaReachability reachability;

  public KafkaReadiness(KafkaReachability reachability) {
    this.reachability = reachability;
  }

  @Override
  public HealthCheckResponse call() {
    return reachability
        .outage()
        .map(
            outage ->
                HealthCheckResponse.named(NAME)
                    .down()
                    .withData("reason", outage.reason())
                    .withData("failedProbes", outage.failedProbes())
                    .build())
        .orElseGet(() -> HealthCheckResponse.up(NAME));
  }
}
