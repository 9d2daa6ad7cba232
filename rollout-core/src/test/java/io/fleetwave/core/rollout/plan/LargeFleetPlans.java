package io.fleetwave.core.rollout.plan;

import io.fleetwave.core.driver.DriverArtifactPolicy;
import io.fleetwave.core.driver.DriverArtifactResolver;
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
            null,
            null,
            null));
  }

  /**
   * The plan of {@link #spec} with a GPU budget (at most {@code maxGpusOffline} GPUs offline, and
   * {@code perPool} per value of label {@code pool}) and maxUnavailable 10 over {@code nodes}
   * nodes.
   */
  public static RolloutPlan plan(
      String prefix, int nodes, int gpus, int maxGpusOffline, int perPool) {
    RolloutSpec plain = spec(prefix);
    RolloutStrategy s = plain.strategy();
    RolloutSpec budgeted =
        new RolloutSpec(
            plain.name(),
            plain.target(),
            plain.change(),
            new RolloutStrategy(
                s.waves(),
                "10",
                s.maxZonesInFlight(),
                s.zoneLabel(),
                s.soakSeconds(),
                s.failureThreshold(),
                s.manualPromotion(),
                s.nodeTimeoutSeconds(),
                s.maintenanceWindow(),
                maxGpusOffline,
                Map.of("pool", perPool)));
    List<FleetNode> fleet = new ArrayList<>(nodes);
    for (int i = 0; i < nodes; i++) {
      fleet.add(node(String.format("%s-%06d", prefix, i), prefix, i, "H100-80GB", gpus));
    }
    return PLANNER.plan(budgeted, new FleetSnapshot(fleet));
  }

  /** The plan of {@link #spec} over nodes {@code <prefix>-000000} and on, of {@code gpus} each. */
  public static RolloutPlan plan(String prefix, int nodes, int gpus) {
    return plan(prefix, nodes, gpus, 0);
  }

  /**
   * The same, the pool also holding {@code excluded} nodes the plan leaves out ({@code
   * <prefix>-x-000000} and on: L4 GPUs, which have no MIG).
   */
  public static RolloutPlan plan(String prefix, int nodes, int gpus, int excluded) {
    List<FleetNode> fleet = new ArrayList<>(nodes + excluded);
    for (int i = 0; i < excluded; i++) {
      fleet.add(node(String.format("%s-x-%06d", prefix, i), prefix, i, "L4", 1));
    }
    for (int i = 0; i < nodes; i++) {
      fleet.add(node(String.format("%s-%06d", prefix, i), prefix, i, "H100-80GB", gpus));
    }
    return PLANNER.plan(spec(prefix), new FleetSnapshot(fleet));
  }

  /** An Ubuntu node of the pool, in one of 16 zones, MIG off on its GPUs. */
  private static FleetNode node(String name, String pool, int index, String model, int gpus) {
    return Fleets.node(
        name,
        HostKind.UBUNTU,
        "zone-" + (index % 16),
        Map.of("pool", pool),
        "580.95.05",
        Fleets.gpus(model, gpus, false, List.of()));
  }
}
