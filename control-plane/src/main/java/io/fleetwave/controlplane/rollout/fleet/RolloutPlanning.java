package io.fleetwave.controlplane.rollout.fleet;

import io.fleetwave.controlplane.driver.DriverArtifactResolver;
import io.fleetwave.controlplane.mig.store.MigConfigStore;
import io.fleetwave.controlplane.readmodel.FleetSnapshotReader;
import io.fleetwave.controlplane.rollout.plan.RolloutPlan;
import io.fleetwave.controlplane.rollout.plan.RolloutPlanner;
import io.fleetwave.controlplane.rollout.plan.RolloutSpec;
import io.fleetwave.events.gpu.GpuCatalog;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Plans a rollout against the fleet as projected now and the MIG configs as stored now. Used for
 * the dry run and for creating a rollout, so the plan a dry run shows is the plan a rollout created
 * from the same request over the same fleet stores.
 */
@ApplicationScoped
public class RolloutPlanning {
  private final FleetSnapshotReader fleet;
  private final MigConfigStore migConfigs;
  private final GpuCatalog catalog;
  private final DriverArtifactResolver drivers;

  public RolloutPlanning(
      FleetSnapshotReader fleet,
      MigConfigStore migConfigs,
      GpuCatalog catalog,
      DriverArtifactResolver drivers) {
    this.fleet = fleet;
    this.migConfigs = migConfigs;
    this.catalog = catalog;
    this.drivers = drivers;
  }

  /**
   * The plan, or a failure with {@link io.fleetwave.controlplane.rollout.plan.RolloutSpecException}
   * when the request is invalid.
   */
  public Uni<RolloutPlan> plan(RolloutSpec spec) {
    return Uni.combine()
        .all()
        .unis(fleet.snapshot(), migConfigs.registry())
        .with(
            (snapshot, registry) ->
                new RolloutPlanner(catalog, registry, drivers).plan(spec, snapshot));
  }
}
