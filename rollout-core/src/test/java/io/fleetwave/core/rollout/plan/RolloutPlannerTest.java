package io.fleetwave.core.rollout.plan;

import static io.fleetwave.core.rollout.plan.Fleets.gpu;
import static io.fleetwave.core.rollout.plan.Fleets.gpus;
import static io.fleetwave.core.rollout.plan.Fleets.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.core.driver.DriverArtifactPolicy;
import io.fleetwave.core.driver.DriverArtifactResolver;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class RolloutPlannerTest {
  private final RolloutPlanner planner =
      new RolloutPlanner(
          Fleets.CATALOG,
          RolloutSpecValidatorTest.REGISTRY,
          new DriverArtifactResolver(DriverArtifactPolicy.nvidiaDefaults()));

  @Test
  void migRolloutPlansExactGpuActionsAndExcludesWhatCannotTakeTheLayout() {
    List<GpuInstance> balanced =
        List.of(
            new GpuInstance("2g.20gb", 0, 2),
            new GpuInstance("1g.10gb", 2, 1),
            new GpuInstance("1g.10gb", 3, 1),
            new GpuInstance("3g.40gb", 4, 4));
    FleetSnapshot fleet =
        fleetOf(
            ubuntu("a100-1", "z1", Map.of("pool", "training"), "580.95.05", migOff("A100-40GB", 2)),
            ubuntu(
                "h100-1",
                "z1",
                Map.of("pool", "training"),
                "580.95.05",
                List.of(
                    gpu(0, "H100-80GB", false, List.of(), 4),
                    gpu(1, "H100-80GB", true, balanced, 0))),
            ubuntu(
                "h100-done",
                "z2",
                Map.of("pool", "training"),
                "580.95.05",
                gpus("H100-80GB", 2, true, balanced)),
            ubuntu("l40s-1", "z2", Map.of("pool", "training"), "580.95.05", migOff("L40S", 2)),
            ubuntu(
                "h100-other-pool",
                "z2",
                Map.of("pool", "inference"),
                "580.95.05",
                migOff("H100-80GB", 1)));
    RolloutSpec spec =
        new RolloutSpec(
            "balanced",
            new RolloutTarget("pool=training", null, null, List.of(), false),
            new RolloutChange("all-balanced", null),
            RolloutSpecValidatorTest.strategy(List.of("1", "100%"), "1"));

    RolloutPlan plan = planner.plan(spec, fleet);

    assertThat(exclusions(plan))
        .containsExactly(
            tuple("h100-done", ExclusionReason.ALREADY_AT_TARGET),
            tuple("l40s-1", ExclusionReason.NO_MATCHING_GPU));
    assertThat(plan.plannedNodes()).isEqualTo(2);
    NodePlan a100 = find(plan, "a100-1");
    assertThat(a100.resetNeeded()).isTrue();
    assertThat(a100.gpuChanges())
        .allSatisfy(
            c -> {
              assertThat(c.fromMode()).isEqualTo(MigMode.DISABLED);
              assertThat(c.toMigEnabled()).isTrue();
              assertThat(c.to())
                  .extracting(GpuInstance::profile)
                  .containsExactlyInAnyOrder("2g.10gb", "1g.5gb", "1g.5gb", "3g.20gb");
            });
    NodePlan h100 = find(plan, "h100-1");
    assertThat(h100.gpuChanges())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.gpuIndex()).isZero();
              assertThat(c.resetNeeded()).isFalse();
              assertThat(c.vfsTouched()).isEqualTo(4);
            });
    assertThat(h100.resetNeeded()).isFalse();
    assertThat(h100.vfsTouched()).isEqualTo(4);
    assertThat(plan.waves()).hasSize(2);
    assertThat(plan.waves().getFirst().canary()).isTrue();
    assertThat(plan.waves().getFirst().nodes()).hasSize(1);

    CapacityImpact h100Capacity =
        plan.capacity().stream()
            .filter(c -> c.gpuModel().equals("H100-80GB"))
            .findFirst()
            .orElseThrow();
    assertThat(h100Capacity.gpus()).isEqualTo(5);
    assertThat(h100Capacity.instancesBefore())
        .isEqualTo(Map.of("1g.10gb", 6, "2g.20gb", 3, "3g.40gb", 3));
    assertThat(h100Capacity.instancesAfter())
        .isEqualTo(Map.of("1g.10gb", 8, "2g.20gb", 4, "3g.40gb", 4));
    assertThat(h100Capacity.peakGpusUnavailable()).isEqualTo(2);
    assertThat(h100Capacity.peakInstancesUnavailable())
        .isEqualTo(Map.of("1g.10gb", 2, "2g.20gb", 1, "3g.40gb", 1));
  }

  @Test
  void withADriverChangeTooANodeNoMigEntryMatchesStillGetsTheDriver() {
    FleetSnapshot fleet =
        fleetOf(
            ubuntu("l40s", "z1", Map.of(), "570.86.15", migOff("L40S", 2)),
            ubuntu("h100", "z1", Map.of(), "570.86.15", migOff("H100-80GB", 1)));

    RolloutPlan plan =
        planner.plan(spec(RolloutTarget.wholeFleet(), "all-balanced", "580.95.05"), fleet);

    assertThat(plan.excluded()).isEmpty();
    NodePlan l40s = find(plan, "l40s");
    assertThat(l40s.gpuChanges()).isEmpty();
    assertThat(l40s.untouchedGpus()).extracting(UntouchedGpu::gpuIndex).containsExactly(0, 1);
    assertThat(l40s.driver().toVersion()).isEqualTo("580.95.05");
    assertThat(find(plan, "h100").gpuChanges()).hasSize(1);
  }

  @Test
  void invalidLayoutExcludesTheNodeNamingModelAndProfile() {
    FleetSnapshot fleet =
        fleetOf(
            ubuntu("a100", "z1", Map.of(), "580.95.05", migOff("A100-40GB", 1)),
            ubuntu("h100", "z1", Map.of(), "580.95.05", migOff("H100-80GB", 1)));

    RolloutPlan plan = planner.plan(spec(RolloutTarget.wholeFleet(), "all-3g", null), fleet);

    assertThat(plan.excluded())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.node()).isEqualTo("a100");
              assertThat(e.reason()).isEqualTo(ExclusionReason.LAYOUT_INVALID);
              assertThat(e.detail()).contains("3g.40gb", "A100-40GB", "config 'all-3g'");
            });
  }

  @Test
  void driverRolloutGivesEachHostKindItsArtifactOrOsImageAction() {
    FleetSnapshot fleet =
        fleetOf(
            ubuntu("ubuntu", "z1", Map.of(), "570.86.15", migOff("H100-80GB", 1)),
            node(
                "container",
                HostKind.UBUNTU_DRIVER_CONTAINER,
                "z1",
                Map.of(),
                "570.86.15",
                migOff("H100-80GB", 1)),
            node("talos", HostKind.TALOS, "z2", Map.of(), "570.86.15", migOff("L40S", 1)),
            node("cos", HostKind.COS, "z2", Map.of(), "570.86.15", migOff("L4", 1)),
            ubuntu("current", "z2", Map.of(), "580.95.05", migOff("L4", 1)));

    RolloutPlan plan = planner.plan(spec(RolloutTarget.wholeFleet(), null, "580.95.05"), fleet);

    assertThat(find(plan, "ubuntu").driver().artifact())
        .isEqualTo(
            new DriverArtifact.HostPackage("580.95.05", "nvidia-driver-580-server", "580.95.05"));
    assertThat(find(plan, "container").driver().artifact())
        .isInstanceOfSatisfying(
            DriverArtifact.ContainerImage.class,
            i -> assertThat(i.image()).isEqualTo("nvcr.io/nvidia/driver:580.95.05-ubuntu22.04"));
    for (String immutable : List.of("talos", "cos")) {
      DriverStep step = find(plan, immutable).driver();
      assertThat(step.osUpgradeNeeded()).isTrue();
      assertThat(step.artifact().describe()).startsWith("needs OS image with driver 580.95.05");
    }
    assertThat(exclusions(plan))
        .containsExactly(tuple("current", ExclusionReason.ALREADY_AT_TARGET));
  }

  @Test
  void driverTooOldForB200AndRtxMigAreExcludedWithReason() {
    FleetSnapshot fleet =
        fleetOf(
            ubuntu("b200", "z1", Map.of(), "570.86.15", migOff("B200", 8)),
            ubuntu("h100", "z1", Map.of(), "570.86.15", migOff("H100-80GB", 8)),
            ubuntu("rtx", "z1", Map.of(), "570.86.15", migOff("RTX-PRO-6000", 1)));

    RolloutPlan downgrade =
        planner.plan(spec(RolloutTarget.wholeFleet(), null, "560.35.03"), fleet);
    RolloutPlan rtxMig =
        planner.plan(
            spec(
                new RolloutTarget(null, List.of("RTX-PRO-6000"), null, null, false),
                "all-balanced",
                null),
            fleet);

    // The catalogue minimum of the RTX PRO 6000 is its MIG minimum; it applies to any driver.
    assertThat(exclusions(downgrade))
        .containsExactly(
            tuple("b200", ExclusionReason.DRIVER_CANNOT_SERVE),
            tuple("rtx", ExclusionReason.DRIVER_CANNOT_SERVE));
    assertThat(downgrade.excluded().getFirst().detail()).contains("B200 needs >= 570.00");
    assertThat(rtxMig.excluded())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.reason()).isEqualTo(ExclusionReason.DRIVER_CANNOT_SERVE);
              assertThat(e.detail()).contains("RTX-PRO-6000", "575.51.03");
            });
  }

  @Test
  void namedNodesMissingFromTheFleetAreExcludedAndInvalidSpecsAreRefused() {
    FleetSnapshot fleet =
        fleetOf(ubuntu("n1", "z1", Map.of(), "570.86.15", migOff("H100-80GB", 1)));

    RolloutPlan plan =
        planner.plan(
            spec(
                new RolloutTarget(null, null, null, List.of("n1", "ghost"), false),
                null,
                "580.95.05"),
            fleet);

    assertThat(exclusions(plan)).containsExactly(tuple("ghost", ExclusionReason.NOT_IN_FLEET));
    assertThatThrownBy(
            () ->
                planner.plan(
                    spec(new RolloutTarget(null, null, null, null, false), null, "580.95.05"),
                    fleet))
        .isInstanceOf(RolloutSpecException.class)
        .hasMessageContaining("empty target");
  }

  @Test
  void zonesAndMaxUnavailableShapeTheBatches() {
    List<FleetNode> nodes = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      String zone = "z" + (i % 3);
      nodes.add(
          ubuntu(
              "n" + i,
              "reported",
              Map.of("topology.kubernetes.io/zone", zone),
              "570.86.15",
              migOff("H100-80GB", 1)));
    }
    RolloutSpec spec =
        new RolloutSpec(
            "z",
            RolloutTarget.wholeFleet(),
            new RolloutChange(null, "580.95.05"),
            new RolloutStrategy(
                List.of("1", "50%", "100%"),
                "25%",
                2,
                null,
                0,
                null,
                false,
                600,
                null,
                null,
                null));

    RolloutPlan plan = planner.plan(spec, new FleetSnapshot(nodes));

    assertThat(plan.maxUnavailableNodes()).isEqualTo(3);
    assertThat(plan.waves()).extracting(PlannedWave::cumulativeNodes).containsExactly(1, 6, 12);
    assertThat(plan.waves().get(1).batches())
        .extracting(b -> b.nodes().size())
        .containsExactly(3, 2);
    for (PlannedWave wave : plan.waves()) {
      for (NodeBatch batch : wave.batches()) {
        assertThat(batch.nodes().size()).isLessThanOrEqualTo(3);
        assertThat(batch.zones().size()).isLessThanOrEqualTo(2);
      }
    }
  }

  @Test
  void aNodeWhoseDesiredSpecAsksForMigOnIsPlannedByARolloutToMigOff() {
    // Observed MIG off, but the desired spec (not applied yet: a process holds the GPU) asks for
    // MIG on: left out, the node would turn MIG on once the process ends.
    FleetNode held =
        withDesired(
            ubuntu("a100-held", "z1", Map.of(), "580.95.05", migOff("A100-40GB", 1)),
            new NodeSpec(
                "a100-held",
                3,
                null,
                List.of(new GpuSpec(0, true, Map.of("1g.5gb", 7), 0, Map.of())),
                GatePolicy.HOLD_UNTIL_APPLIED));
    FleetNode settled = ubuntu("a100-settled", "z1", Map.of(), "580.95.05", migOff("A100-40GB", 1));

    RolloutPlan plan =
        planner.plan(
            spec(RolloutTarget.wholeFleet(), "all-disabled", null), fleetOf(held, settled));

    NodePlan planned = find(plan, "a100-held");
    assertThat(planned.gpuChanges())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.fromMode()).isEqualTo(MigMode.DISABLED);
              assertThat(c.toMigEnabled()).isFalse();
              assertThat(c.resetNeeded()).isFalse();
            });
    assertThat(planned.pendingSpec()).isEqualTo(held.desired());
    assertThat(exclusions(plan))
        .containsExactly(tuple("a100-settled", ExclusionReason.ALREADY_AT_TARGET));
  }

  @Test
  void aNodeWhoseDesiredSpecAsksForAnotherDriverIsPlannedByARolloutToTheDriverItRuns() {
    FleetNode held =
        withDesired(
            ubuntu("l40s-held", "z1", Map.of(), "580.95.05", migOff("L40S", 1)),
            new NodeSpec("l40s-held", 2, "570.86.15", List.of(), GatePolicy.HOLD_UNTIL_APPLIED));

    RolloutPlan plan =
        planner.plan(spec(RolloutTarget.wholeFleet(), null, "580.95.05"), fleetOf(held));

    NodePlan planned = find(plan, "l40s-held");
    assertThat(planned.driver().fromVersion()).isEqualTo("580.95.05");
    assertThat(planned.driver().toVersion()).isEqualTo("580.95.05");
    assertThat(planned.pendingSpec().driverVersion()).isEqualTo("570.86.15");
  }

  @Test
  void batchesKeepWithinTheGpuBudgetAndEachWaveForecastsGpusOfflineAndItsDuration() {
    List<FleetNode> nodes = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      nodes.add(
          ubuntu("h" + i, "z1", Map.of("team", "search"), "570.86.15", migOff("H100-80GB", 8)));
    }
    for (int i = 1; i <= 2; i++) {
      nodes.add(ubuntu("l" + i, "z1", Map.of("team", "vision"), "570.86.15", migOff("L40S", 2)));
    }
    RolloutSpec spec = budgeted(18, Map.of("team", 16));

    RolloutPlan plan =
        planner.plan(
            spec,
            new FleetSnapshot(nodes),
            new ApplyTimes(Map.of("ubuntu/H100-80GB", java.time.Duration.ofMinutes(10))));

    assertThat(plan.waves().getFirst().batches())
        .extracting(b -> b.nodes().stream().map(NodePlan::node).toList())
        .as("h1, l1, h2 fill 18 GPUs (16 of search); l2 waits for the next batch")
        .containsExactly(List.of("h1", "l1", "h2"), List.of("l2", "h3", "h4"));
    assertThat(find(plan, "h1").gpus()).isEqualTo(8);
    assertThat(find(plan, "h1").budgetLabels()).containsExactly(Map.entry("team", "search"));
    WaveForecast wave = plan.forecasts().getFirst();
    assertThat(wave.peakGpusOffline()).isEqualTo(18);
    assertThat(wave.peakGpusOfflineByLabel())
        .containsExactly(Map.entry("team", Map.of("search", 16, "vision", 2)));
    assertThat(wave.peakGpusOfflineByZone()).containsExactly(Map.entry("z1", 18));
    assertThat(wave.peakGpusOfflineByModel())
        .containsExactly(Map.entry("H100-80GB", 16), Map.entry("L40S", 2));
    assertThat(wave.expectedSeconds())
        .as("two batches, each as long as its measured H100 node (10 min)")
        .isEqualTo(1200);
    assertThat(wave.unmeasuredKinds()).containsExactly("ubuntu/L40S");
  }

  @Test
  void aNodeThatAloneExceedsTheGpuBudgetIsRefusedNamingItAndTheBound() {
    FleetSnapshot fleet =
        fleetOf(
            ubuntu("big", "z1", Map.of("team", "search"), "570.86.15", migOff("H100-80GB", 8)),
            ubuntu("small", "z1", Map.of("team", "search"), "570.86.15", migOff("L40S", 2)));

    assertThat(
            catchThrowableOfType(
                    RolloutSpecException.class,
                    () -> planner.plan(budgeted(null, Map.of("team", 4)), fleet))
                .problems())
        .containsExactly(
            new RolloutSpecProblem(
                "strategy.maxGpusOfflinePer.team",
                "node big (team=search) has 8 GPUs, more than maxGpusOfflinePer.team 4 allows"
                    + " offline at once: it could never be taken out of service"));
    assertThat(
            catchThrowableOfType(
                    RolloutSpecException.class, () -> planner.plan(budgeted(6, Map.of()), fleet))
                .problems())
        .extracting(RolloutSpecProblem::field)
        .containsExactly("strategy.maxGpusOffline");
  }

  private static RolloutSpec budgeted(Integer maxGpusOffline, Map<String, Integer> perLabel) {
    return new RolloutSpec(
        "budget",
        RolloutTarget.wholeFleet(),
        new RolloutChange(null, "580.95.05"),
        new RolloutStrategy(
            List.of("100%"), "4", null, null, 0, null, false, 600, null, maxGpusOffline, perLabel));
  }

  private static FleetSnapshot fleetOf(FleetNode... nodes) {
    return new FleetSnapshot(List.of(nodes));
  }

  /** A node on Ubuntu, the host kind most cases here do not care about. */
  private static FleetNode ubuntu(
      String name, String zone, Map<String, String> labels, String driver, List<Gpu> gpus) {
    return node(name, HostKind.UBUNTU, zone, labels, driver, gpus);
  }

  /** {@code count} GPUs of the model with MIG off and no VFs. */
  private static List<Gpu> migOff(String model, int count) {
    return gpus(model, count, false, List.of());
  }

  private static FleetNode withDesired(FleetNode node, NodeSpec desired) {
    return new FleetNode(
        node.name(),
        node.hostKind(),
        node.zone(),
        node.labels(),
        node.driver(),
        node.gpus(),
        desired,
        true);
  }

  private static RolloutSpec spec(RolloutTarget target, String migConfig, String driver) {
    return new RolloutSpec(
        "t",
        target,
        new RolloutChange(migConfig, driver),
        RolloutSpecValidatorTest.strategy(List.of("1", "100%"), "2"));
  }

  /** Each excluded node with its reason, in the plan's order. */
  private static List<Tuple> exclusions(RolloutPlan plan) {
    return plan.excluded().stream().map(e -> tuple(e.node(), e.reason())).toList();
  }

  private static NodePlan find(RolloutPlan plan, String node) {
    return plan.waves().stream()
        .flatMap(w -> w.nodes().stream())
        .filter(n -> n.node().equals(node))
        .findFirst()
        .orElseThrow(() -> new AssertionError(node + " not planned: " + plan.excluded()));
  }
}
