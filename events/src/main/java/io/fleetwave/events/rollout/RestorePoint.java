package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notNull;

import io.fleetwave.events.spec.GpuSpec;
import java.util.List;

/**
 * What a node had before the rollout touched it, so a rollback can put it back from the log.
 *
 * @param driverVersion the driver it ran (or the one its spec wanted), null when unknown
 * @param gpus the desired (or, without a spec, observed) state of every GPU the rollout changes
 */
public record RestorePoint(String driverVersion, List<GpuSpec> gpus) {
  public RestorePoint {
    notNull(gpus, "gpus");
    gpus = List.copyOf(gpus);
  }
}
