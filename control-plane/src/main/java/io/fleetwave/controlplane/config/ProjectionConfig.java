package io.fleetwave.controlplane.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * {@code fleetwave.projection.*}: how the projection waits out PostgreSQL, and how long the node
 * history is kept (docs/reliability.md).
 */
@ConfigMapping(prefix = "fleetwave.projection")
public interface ProjectionConfig {
  Retry retry();

  History history();

  Snapshots snapshots();

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

  /**
   * The node history (changes of state; heartbeats are only the node row's last_seen) is
   * partitioned by event time, one partition per UTC day, and dropped a partition at a time.
   */
  interface History {
    /** History older than this is dropped (kept at least this long, at most a day longer). */
    @WithDefault("30d")
    @DurationMin(hours = 24)
    Duration retention();

    /** How far ahead of today day partitions exist, so that writes never wait for one. */
    @WithDefault("3d")
    @DurationMin(hours = 24)
    Duration ahead();

    /** How often partitions are created and dropped (also once at start). */
    @WithDefault("1h")
    @DurationMin(seconds = 1)
    Duration maintenanceInterval();
  }

  /**
   * Each node's projected state is published to the compacted fleet.node-snapshots, so that a
   * rebuild needs only the retained tail of fleet.node-events. Kafka's retention of that topic must
   * be longer than this interval (it is days; this is minutes).
   */
  interface Snapshots {
    /** How often the nodes that changed since their last snapshot are published. */
    @WithDefault("5m")
    @DurationMin(seconds = 1)
    Duration interval();
  }
}
