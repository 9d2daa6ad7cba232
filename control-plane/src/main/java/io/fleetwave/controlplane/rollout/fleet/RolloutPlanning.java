package io.fleetwave.controlplane.rollout.fleet;

import io.fleetwave.controlplane.mig.store.MigConfigStore;
import io.fleetwave.controlplane.readmodel.ApplyTimesReader;
import io.fleetwave.controlplane.readmodel.FleetSnapshotReader;
import io.fleetwave.core.driver.DriverArtifactResolver;
import io.fleetwave.core.rollout.plan.RolloutPlan;
import io.fleetwave.core.rollout.plan.RolloutPlanner;
import io.fleetwave.core.rollout.plan.RolloutSpec;
import io.fleetwave.events.gpu.GpuCatalog;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Plans a rollout against the fleet as projected now, the MIG configs as stored now and the apply
 * times measured in past rollouts (for each wave's expected duration). Used for the dry run and for
 * creating a rollout, so the plan a dry run shows is the plan a rollout created from the same
 * request over the same fleet stores.
 */
@ApplicationScoped
public class RolloutPlanning {
  private final FleetSnapshotReader fleet;
  private final ApplyTimesReader applyTimes;
  private final MigConfigStore migConfigs;
  private final GpuCatalog catalog;
  private final DriverArtifactResolver drivers;

  public RolloutPlanning(
      FleetSnapshotReader fleet,
      ApplyTimesReader applyTimes,
      MigConfigStore migConfigs,
      GpuCatalog catalog,
      DriverArtifactResolver drivers) {
    this.fleet = fleet;
    this.applyTimes = applyTimes;
    this.migConfigs = migConfigs;
    this.catalog = catalog;
    this.drivers = drivers;
  }

  /**
   * The plan, or a failure with {@link io.fleetwave.core.rollout.plan.RolloutSpecException} when
   * the request is invalid.
   */
  public Uni<RolloutPlan> plan(RolloutSpec spec) {
    return Uni.combine()
        .all()
        .unis(fleet.snapshot(), migConfigs.registry(), applyTimes.measured())
        .asTuple()
        // The reads complete on an event loop, which also serves the API and the projection; a
        // plan of 100,000 nodes takes seconds of CPU.
        .emitOn(Infrastructure.getDefaultWorkerPool())
        .map(
            read ->
                new RolloutPlanner(catalog, read.getItem2(), drivers)
                    .plan(spec, read.getItem1(), read.getItem3()));
  }
}
