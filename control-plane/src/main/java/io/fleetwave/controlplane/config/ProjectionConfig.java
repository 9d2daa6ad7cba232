package io.fleetwave.controlplane.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * {@code fleetwave.projection.*}: how the projection waits out PostgreSQL (README, Reliability).
 */
@ConfigMapping(prefix = "fleetwave.projection")
public interface ProjectionConfig {
  Retry retry();

  /** The bound on one attempt of a batch's transaction. */
  @WithDefault("60s")
  @DurationMin(millis = 1)
  Duration attemptTimeout();

  /** Backoff between attempts of a batch: doubling from the initial delay, capped, 20% jitter. */
  interface Retry {
    @WithDefault("100ms")
    @DurationMin(millis = 1)
    Duration initialBackoff();

    @WithDefault("10s")
    @DurationMin(millis = 1)
    Duration maxBackoff();
  }
}
