package io.fleetwave.controlplane.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * {@code fleetwave.fleet-view.*}: the fleet each replica holds in memory, folded from
 * fleet.node-events, that the fleet summary and the nodes are read from (docs/architecture.md,
 * "Reads from memory").
 */
@ConfigMapping(prefix = "fleetwave.fleet-view")
public interface FleetViewConfig {
  /**
   * The bound on each wait while the view is loaded: the projection group's offsets from Kafka, the
   * tables from PostgreSQL, the partitions' ends, the node keys of a batch.
   */
  @WithDefault("30s")
  @DurationMin(millis = 1)
  Duration timeout();

  /** How long after a failure the view is loaded again (readers use PostgreSQL meanwhile). */
  @WithDefault("5s")
  @DurationMin(millis = 1)
  Duration retryAfter();

  /**
   * How often the view is compared with the tables, node by node where both stand at the same
   * position; a node that differs is logged, counted and set as the tables hold it.
   */
  @WithDefault("5m")
  @DurationMin(seconds = 1)
  Duration compareEvery();

  /**
   * How long a read or write of PostgreSQL about one node (its spec, a command, its history) waits
   * for the tables to hold the node where this replica's view has shown it, so that what a client
   * saw in {@code GET /api/v1/nodes/{name}} is what the next call acts on; past it, the call goes
   * on with what the tables hold.
   */
  @WithDefault("5s")
  @DurationMin(millis = 1)
  Duration tablesWait();
}
