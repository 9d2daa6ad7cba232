package io.fleetwave.core.rollout.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.core.driver.DriverArtifactPolicy;
import io.fleetwave.core.driver.DriverArtifactResolver;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.HostKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Planner invariants over random heterogeneous fleets and strategies. */
class RolloutPlannerProperties {
  private static final List<GpuModel> MODELS = Fleets.CATALOG.models();
  private static final List<String> DRIVERS =
      List.of("560.35.03", "570.172.08", "575.51.03", "580.95.05");
  private static final List<String> CONFIGS = List.of("all-balanced", "all-disabled", "all-3g");
  private static final List<Integer> PERCENTS = List.of(5, 10, 25, 50, 75, 90);

  private final RolloutPlanner planner =
      new RolloutPlanner(
          Fleets.CATALOG,
          RolloutSpecValidatorTest.REGISTRY,
          new DriverArtifactResolver(DriverArtifactPolicy.nvidiaDefaults()));

  record Scenario(FleetSnapshot fleet, RolloutSpec spec) {}

  @Property(tries = 200)
  void maxUnavailableIsNeverExceededInAnyBatch(@ForAll("scenarios") Scenario s) {
    RolloutPlan plan = planner.plan(s.spec(), s.fleet());
    int n = plan.plannedNodes();
    Quantity max = Quantity.parse(s.spec().strategy().maxUnavailable(), "m", 1);
    int limit = Math.max(1, max.resolve(n));
    batches(plan).forEach(b -> assertThat(b.nodes()).isNotEmpty().hasSizeLessThanOrEqualTo(limit));
  }

  /** GPUs recomputed from the fleet, not taken from the plan. */
  @Property(tries = 200)
  void theGpuBudgetHoldsInEveryBatchOverallAndPerPool(@ForAll("scenarios") Scenario s) {
    RolloutPlan plan = planner.plan(s.spec(), s.fleet());
    RolloutStrategy strategy = s.spec().strategy();
    Map<String, FleetNode> byName = byName(s.fleet());
    for (NodeBatch batch : batches(plan)) {
      int gpus = 0;
      Map<String, Integer> byPool = new HashMap<>();
      for (NodePlan node : batch.nodes()) {
        FleetNode fleetNode = byName.get(node.node());
        gpus += fleetNode.gpus().size();
        byPool.merge(fleetNode.labels().get("pool"), fleetNode.gpus().size(), Integer::sum);
      }
      if (strategy.maxGpusOffline() != null) {
        assertThat(gpus).isLessThanOrEqualTo(strategy.maxGpusOffline());
      }
      Integer perPool = strategy.maxGpusOfflinePer().get("pool");
      if (perPool != null) {
        assertThat(byPool).allSatisfy((pool, n) -> assertThat(n).isLessThanOrEqualTo(perPool));
      }
    }
  }

  @Property(tries = 200)
  void maxZonesInFlightHoldsInEveryBatch(@ForAll("scenarios") Scenario s) {
    RolloutPlan plan = planner.plan(s.spec(), s.fleet());
    Integer maxZones = s.spec().strategy().maxZonesInFlight();
    Map<String, FleetNode> byName = byName(s.fleet());
    for (NodeBatch batch : batches(plan)) {
      // Zones recomputed from the fleet, not taken from the plan.
      Set<String> zones =
          batch.nodes().stream().map(p -> zoneOf(byName.get(p.node()))).collect(Collectors.toSet());
      assertThat(new TreeSet<>(zones)).containsExactlyElementsOf(batch.zones());
      if (maxZones != null) {
        assertThat(zones).hasSizeLessThanOrEqualTo(maxZones);
      }
    }
  }

  @Property(tries = 200)
  void everyTargetedNodeIsInExactlyOneWaveOrExcludedWithAReason(@ForAll("scenarios") Scenario s) {
    RolloutPlan plan = planner.plan(s.spec(), s.fleet());
    List<String> planned =
        plan.waves().stream().flatMap(w -> w.nodes().stream()).map(NodePlan::node).toList();
    List<String> excluded = plan.excluded().stream().map(ExcludedNode::node).toList();
    List<String> all = new ArrayList<>(planned);
    all.addAll(excluded);

    assertThat(all).doesNotHaveDuplicates();
    assertThat(new HashSet<>(all)).isEqualTo(targeted(s));
    assertThat(plan.plannedNodes()).isEqualTo(planned.size());
    plan.excluded().forEach(e -> assertThat(e.detail()).isNotBlank());
    plan.waves().stream()
        .flatMap(w -> w.nodes().stream())
        .forEach(
            p ->
                assertThat(p.driver() != null || !p.gpuChanges().isEmpty())
                    .as(p.node() + " changes something")
                    .isTrue());
  }

  @Property(tries = 200)
  void canaryComesFirstWithItsSizeAndWavesAreCumulativeAsSpecified(
      @ForAll("scenarios") Scenario s) {
    RolloutPlan plan = planner.plan(s.spec(), s.fleet());
    int n = plan.plannedNodes();
    List<String> specs = s.spec().strategy().waves();
    if (n == 0) {
      assertThat(plan.waves()).isEmpty();
      return;
    }
    PlannedWave canary = plan.waves().getFirst();
    assertThat(canary.canary()).isTrue();
    assertThat(canary.waveSpec()).isEqualTo(specs.getFirst());
    assertThat(canary.nodes()).hasSize(Quantity.parse(specs.getFirst(), "w", 1).resolve(n));
    assertThat(plan.waves().stream().skip(1)).noneMatch(PlannedWave::canary);

    int done = 0;
    int specIndex = 0;
    for (PlannedWave wave : plan.waves()) {
      // Waves the strategy lists that add nobody are skipped; every kept wave reaches its target.
      while (!specs.get(specIndex).equals(wave.waveSpec())
          || expected(specs, specIndex, n) == done) {
        assertThat(expected(specs, specIndex, n)).isEqualTo(done);
        specIndex++;
      }
      done += wave.nodes().size();
      assertThat(wave.cumulativeNodes()).isEqualTo(done).isEqualTo(expected(specs, specIndex, n));
      specIndex++;
    }
    assertThat(done).isEqualTo(n);
  }

  @Property(tries = 200)
  void planIsDeterministicWhateverTheFleetOrder(
      @ForAll("scenarios") Scenario s, @ForAll long seed) {
    List<FleetNode> shuffled = new ArrayList<>(s.fleet().nodes());
    Collections.shuffle(shuffled, new Random(seed));

    RolloutPlan first = planner.plan(s.spec(), s.fleet());
    RolloutPlan second = planner.plan(s.spec(), new FleetSnapshot(shuffled));

    assertThat(second).isEqualTo(first);
  }

  // Cumulative size wave i must reach: the largest resolution so far, capped at n.
  private static int expected(List<String> specs, int index, int n) {
    int reach = 0;
    for (int i = 0; i <= index; i++) {
      reach = Math.max(reach, Quantity.parse(specs.get(i), "w", 1).resolve(n));
    }
    return Math.min(n, reach);
  }

  private static Set<String> targeted(Scenario s) {
    RolloutTarget t = s.spec().target();
    Set<String> out = new HashSet<>();
    for (FleetNode node : s.fleet().nodes()) {
      boolean in =
          t.allNodes()
              || ((t.selector() == null || "training".equals(node.labels().get("pool")))
                  && (t.hostKinds().isEmpty() || t.hostKinds().contains(node.hostKind()))
                  && (t.nodes().isEmpty() || t.nodes().contains(node.name()))
                  && (t.gpuModels().isEmpty()
                      || node.gpus().stream()
                          .anyMatch(
                              g ->
                                  Fleets.CATALOG
                                      .find(g.pciDeviceId())
                                      .orElseThrow()
                                      .shortName()
                                      .equals(t.gpuModels().getFirst()))));
      if (in) {
        out.add(node.name());
      }
    }
    Set<String> names = s.fleet().nodes().stream().map(FleetNode::name).collect(Collectors.toSet());
    t.nodes().stream().filter(n -> !names.contains(n)).forEach(out::add);
    return out;
  }

  private static String zoneOf(FleetNode node) {
    String label = node.labels().get(RolloutStrategy.DEFAULT_ZONE_LABEL);
    return label != null ? label : node.zone() != null ? node.zone() : RolloutPlanner.UNKNOWN_ZONE;
  }

  private static Map<String, FleetNode> byName(FleetSnapshot fleet) {
    Map<String, FleetNode> map = new HashMap<>();
    fleet.nodes().forEach(n -> map.put(n.name(), n));
    return map;
  }

  private static List<NodeBatch> batches(RolloutPlan plan) {
    return plan.waves().stream().flatMap(w -> w.batches().stream()).toList();
  }

  @Provide
  Arbitrary<Scenario> scenarios() {
    Arbitrary<List<FleetNode>> fleet =
        Arbitraries.integers().between(0, 40).flatMap(size -> nodes(size));
    return fleet.flatMap(
        nodes -> spec(nodes).map(spec -> new Scenario(new FleetSnapshot(nodes), spec)));
  }

  private static Arbitrary<List<FleetNode>> nodes(int size) {
    List<Arbitrary<FleetNode>> nodes = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      nodes.add(node(String.format("node-%03d", i)));
    }
    return Combinators.combine(nodes).as(List::copyOf);
  }

  private static Arbitrary<FleetNode> node(String name) {
    Arbitrary<HostKind> kind = Arbitraries.of(HostKind.class);
    Arbitrary<String> zoneLabel = Arbitraries.of("z0", "z1", "z2", "z3", "z4").injectNull(0.2);
    Arbitrary<String> reportedZone = Arbitraries.of("r0", "r1").injectNull(0.5);
    Arbitrary<String> pool = Arbitraries.of("training", "inference");
    Arbitrary<String> driver = Arbitraries.of(DRIVERS);
    Arbitrary<List<Gpu>> gpus =
        Combinators.combine(
                Arbitraries.of(MODELS),
                Arbitraries.integers().between(0, 8),
                Arbitraries.integers().between(0, 3))
            .as((model, count, state) -> gpus(model, count, state));
    return Combinators.combine(kind, zoneLabel, reportedZone, pool, driver, gpus)
        .as(
            (k, zone, reported, p, d, g) -> {
              Map<String, String> labels = new HashMap<>();
              labels.put("pool", p);
              if (zone != null) {
                labels.put(RolloutStrategy.DEFAULT_ZONE_LABEL, zone);
              }
              return new FleetNode(name, k, reported, labels, Fleets.driver(k, d), g);
            });
  }

  // state: 0 MIG off, 1 MIG on without instances, 2 one 7g-style full instance, 3 balanced-ish
  private static List<Gpu> gpus(GpuModel model, int count, int state) {
    List<Gpu> gpus = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      boolean on = model.migCapable() && state > 0;
      List<GpuInstance> instances = List.of();
      if (on && state >= 2) {
        var profile =
            model.mig().profiles().stream()
                .filter(p -> p.maxCount() == 1 && p.memorySlices() == model.mig().memorySlices())
                .findFirst()
                .orElse(model.mig().profiles().getFirst());
        instances = List.of(new GpuInstance(profile.name(), 0, profile.memorySlices()));
      }
      gpus.add(Fleets.gpu(i, model.shortName(), on, instances, i % 3));
    }
    return gpus;
  }

  private static Arbitrary<RolloutSpec> spec(List<FleetNode> nodes) {
    List<String> names = nodes.stream().map(FleetNode::name).toList();
    Arbitrary<RolloutTarget> target =
        Arbitraries.integers()
            .between(0, 4)
            .flatMap(
                kind ->
                    switch (kind) {
                      case 0 -> Arbitraries.just(RolloutTarget.wholeFleet());
                      case 1 ->
                          Arbitraries.just(
                              new RolloutTarget("pool=training", null, null, null, false));
                      case 2 ->
                          Arbitraries.of(MODELS)
                              .map(
                                  m ->
                                      new RolloutTarget(
                                          null, List.of(m.shortName()), null, null, false));
                      case 3 ->
                          Arbitraries.of(HostKind.class)
                              .map(
                                  k ->
                                      new RolloutTarget(
                                          "pool=training", null, List.of(k), null, false));
                      default -> {
                        List<String> pool = new ArrayList<>(names);
                        pool.add("ghost-node");
                        yield Arbitraries.of(pool)
                            .set()
                            .ofMinSize(1)
                            .ofMaxSize(8)
                            .map(
                                set ->
                                    new RolloutTarget(
                                        null, null, null, set.stream().sorted().toList(), false));
                      }
                    });
    Arbitrary<RolloutChange> change =
        Combinators.combine(Arbitraries.of(CONFIGS).injectNull(0.4), Arbitraries.of(DRIVERS))
            .as(
                (config, driver) ->
                    config == null
                        ? new RolloutChange(null, driver)
                        : new RolloutChange(config, null));
    Arbitrary<List<String>> waves =
        Combinators.combine(
                Arbitraries.integers().between(1, 3),
                Arbitraries.of(PERCENTS).set().ofMaxSize(4),
                Arbitraries.of(true, false))
            .as(
                (canary, percents, percentCanary) -> {
                  List<String> list = new ArrayList<>();
                  list.add(percentCanary ? canary + "%" : Integer.toString(canary));
                  new TreeSet<>(percents)
                      .stream()
                          .filter(p -> !percentCanary || p > canary)
                          .forEach(p -> list.add(p + "%"));
                  list.add("100%");
                  return list;
                });
    Arbitrary<String> maxUnavailable =
        Arbitraries.oneOf(
            Arbitraries.integers().between(1, 6).map(String::valueOf),
            Arbitraries.integers().between(1, 60).map(p -> p + "%"));
    Arbitrary<Integer> maxZones = Arbitraries.integers().between(1, 3).injectNull(0.3);
    // At least 8: no node has more GPUs, so none exceeds a bound alone.
    Arbitrary<Integer> maxGpus = Arbitraries.integers().between(8, 40).injectNull(0.4);
    Arbitrary<Integer> perPool = Arbitraries.integers().between(8, 24).injectNull(0.4);
    return Combinators.combine(target, change, waves, maxUnavailable, maxZones, maxGpus, perPool)
        .as(
            (t, c, w, m, z, g, p) ->
                new RolloutSpec(
                    "prop",
                    t,
                    c,
                    new RolloutStrategy(
                        w,
                        m,
                        z,
                        null,
                        0,
                        null,
                        false,
                        600,
                        null,
                        g,
                        p == null ? null : Map.of("pool", p))));
  }
}
