package io.fleetwave.controlplane.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;

/** {@code fleetwave.api.*}: how the read API trades freshness for cost. */
@ConfigMapping(prefix = "fleetwave.api")
public interface ApiConfig {
  /**
   * The oldest GET /api/v1/fleet/summary ever served (counted from the end of its count): it is
   * computed at most once per half of this (one count at a time, in the background while the
   * previous one is served), so that the cost of counting the whole fleet does not grow with the
   * number of dashboards polling it.
   */
  @WithDefault("2s")
  @DurationMin(millis = 100)
  Duration summaryMaxAge();
}
