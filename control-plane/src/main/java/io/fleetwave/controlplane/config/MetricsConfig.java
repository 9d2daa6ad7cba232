package io.fleetwave.controlplane.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;

/** {@code fleetwave.metrics.*}: the gauges computed from the projection. */
@ConfigMapping(prefix = "fleetwave.metrics")
public interface MetricsConfig {
  /**
   * How often the fleet and rollout gauges are recomputed from PostgreSQL (one pair of queries per
   * replica, whatever the scrape rate).
   */
  @WithDefault("15s")
  @DurationMin(seconds = 1)
  Duration refresh();

  /** A node with no event for this long counts as silent ({@code fleetwave_fleet_nodes_silent}). */
  @WithDefault("5m")
  @DurationMin(seconds = 1)
  Duration silentAfter();
}
