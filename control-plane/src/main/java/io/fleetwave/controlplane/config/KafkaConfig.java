package io.fleetwave.controlplane.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * {@code fleetwave.kafka.*}: how the control plane tells that the broker is away
 * (docs/reliability.md "The Kafka broker stopped, restarting or unreachable"): a probe of the
 * cluster every {@code probe-interval}, each bounded by {@code probe-timeout}.
 */
@ConfigMapping(prefix = "fleetwave.kafka")
public interface KafkaConfig {
  /** Pause between two probes of the cluster (describeCluster). */
  @WithDefault("2s")
  @DurationMin(millis = 1)
  Duration probeInterval();

  /** The bound on one probe; a probe that does not answer within it counts as unreachable. */
  @WithDefault("5s")
  @DurationMin(millis = 1)
  Duration probeTimeout();
}
