package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.config.ProjectionConfig;
import io.fleetwave.core.projection.HistoryPartitionPlan;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;

/**
 * How far back the fleet can be read as it was: the node history is kept from the start of the UTC
 * day of now - {@code fleetwave.projection.history.retention} (older day partitions are dropped,
 * {@link HistoryPartitionPlan}), so that is the oldest moment an as-of read is answered for.
 */
@ApplicationScoped
public class HistoryHorizon {
  private final ProjectionConfig config;

  public HistoryHorizon(ProjectionConfig config) {
    this.config = config;
  }

  /** The oldest moment answered at {@code now}. */
  public Instant oldestServed(Instant now) {
    return HistoryPartitionPlan.keptFrom(now, config.history().retention());
  }
}
