package io.fleetwave.controlplane.rollout.plan;

import io.fleetwave.controlplane.driver.DriverArtifactPolicy;
import io.fleetwave.controlplane.driver.DriverArtifactResolver;
import io.fleetwave.events.node.HostKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Real plans of large fleets, from the real planner: Ubuntu nodes of H100 GPUs with MIG off, each
 * given the balanced MIG layout (per node: one change per GPU, the zone, the reset).
 */
public final class LargeFleetPlans {
  private static final RolloutPlanner PLANNER =
      new RolloutPlanner(
          Fleets.CATALOG,
          RolloutSpecValidatorTest.REGISTRY,
          new DriverArtifactResolver(DriverArtifactPolicy.nvidiaDefaults()));

  private LargeFleetPlans() {}

  /** The request: every node labelled {@code pool=<prefix>}, canary then the rest. */
  public static RolloutSpec spec(String prefix) {
    return new RolloutSpec(
        prefix,
        new RolloutTarget("pool=" + prefix, List.of(), List.of(), List.of(), false),
        new RolloutChange("all-balanced", null),
        new RolloutStrategy(
            List.of("1", "100%"),
            "1",
            1,
            null,
            0,
            new FailureThreshold("0", "0", FailureAction.PAUSE),
            true,
            600,
            null));
  }

  /** The plan of {@link #spec} over nodes {@code <prefix>-000000} and on, of {@code gpus} each. */
  public static RolloutPlan plan(String prefix, int nodes, int gpus) {
    List<FleetNode> fleet = new ArrayList<>(nodes);
    for (int i = 0; i < nodes; i++) {
      fleet.add(
          Fleets.node(
              String.format("%s-%06d", prefix, i),
              HostKind.UBUNTU,
              "zone-" + (i % 16),
              Map.of("pool", prefix),
              "580.95.05",
              Fleets.gpus("H100-80GB", gpus, false, List.of())));
    }
    return PLANNER.plan(spec(prefix), new FleetSnapshot(fleet));
  }
}
