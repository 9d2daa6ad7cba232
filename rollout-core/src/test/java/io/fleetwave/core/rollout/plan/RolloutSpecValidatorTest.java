package io.fleetwave.core.rollout.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import io.fleetwave.core.mig.MigConfigImporter;
import io.fleetwave.core.mig.MigConfigRegistry;
import io.fleetwave.core.selector.LabelSelector;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.node.HostKind;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RolloutSpecValidatorTest {
  static final MigConfigRegistry REGISTRY =
      MigConfigRegistry.of(
          new MigConfigImporter(GpuCatalog.bundled())
              .importFile(
                  """
                  version: v1
                  mig-configs:
                    all-disabled:
                      - devices: all
                        mig-enabled: false
                    all-balanced:
                      - device-filter: ["0x233010DE", "0x233110DE", "0x232210DE", "0x232410DE", "0x20B210DE"]
                        devices: all
                        mig-enabled: true
                        mig-devices: {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}
                      - device-filter: ["0x233510DE"]
                        devices: all
                        mig-enabled: true
                        mig-devices: {"1g.18gb": 2, "2g.35gb": 1, "3g.71gb": 1}
                      - device-filter: ["0x20B010DE"]
                        devices: all
                        mig-enabled: true
                        mig-devices: {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}
                      - device-filter: ["0x2BB510DE"]
                        devices: all
                        mig-enabled: true
                        mig-devices: {"1g.24gb": 2, "2g.48gb": 1}
                    all-3g:
                      - devices: all
                        mig-enabled: true
                        mig-devices: {"3g.40gb": 2}
                  """));
  private final RolloutSpecValidator validator =
      new RolloutSpecValidator(GpuCatalog.bundled(), REGISTRY);

  @Test
  void theIssueExampleIsAccepted() {
    RolloutSpec spec =
        new RolloutSpec(
            "h100-balanced",
            new RolloutTarget(
                "pool=training", List.of("0x233010DE"), List.of(HostKind.UBUNTU), List.of(), false),
            new RolloutChange("all-balanced", null),
            strategy(List.of("1", "10%", "50%", "100%"), "10%"));

    ValidRollout valid = validator.check(spec);

    assertThat(valid.waves())
        .containsExactly(
            new Quantity.Count(1),
            new Quantity.Percent(10),
            new Quantity.Percent(50),
            new Quantity.Percent(100));
    assertThat(valid.maxUnavailable()).isEqualTo(new Quantity.Percent(10));
    assertThat(valid.migConfig().name()).isEqualTo("all-balanced");
  }

  @Test
  void emptyTargetIsRefusedUnlessAllNodesIsSaid() {
    RolloutSpec empty =
        new RolloutSpec(
            "x",
            new RolloutTarget(" ", List.of(), List.of(), List.of(), false),
            new RolloutChange("all-balanced", null),
            strategy(List.of("100%"), "1"));

    assertThat(problems(empty))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.field()).isEqualTo("target");
              assertThat(p.message()).contains("empty target", "allNodes: true");
            });
    assertThat(
            validator.check(
                new RolloutSpec(
                    "x",
                    RolloutTarget.wholeFleet(),
                    new RolloutChange("all-balanced", null),
                    strategy(List.of("100%"), "1"))))
        .isNotNull();
    assertThat(
            problems(
                new RolloutSpec(
                    "x",
                    new RolloutTarget("pool=a", null, null, null, true),
                    new RolloutChange("all-balanced", null),
                    strategy(List.of("100%"), "1"))))
        .extracting(RolloutSpecProblem::field)
        .containsExactly("target.allNodes");
  }

  @Test
  void badWavesAreRefusedWithTheirIndex() {
    assertThat(problems(withWaves(List.of("1", "0%", "150%", "abc", "50%", "10%", "100%"))))
        .extracting(RolloutSpecProblem::field, RolloutSpecProblem::message)
        .anySatisfy(
            t ->
                assertThat(t.toList())
                    .containsExactly(
                        "strategy.waves[1]", "wave '0%' must be a percentage between 1% and 100%"))
        .anySatisfy(
            t ->
                assertThat(t.toList())
                    .containsExactly(
                        "strategy.waves[2]",
                        "wave '150%' must be a percentage between 1% and 100%"))
        .anySatisfy(t -> assertThat(t.toList().get(0)).isEqualTo("strategy.waves[3]"))
        .anySatisfy(
            t ->
                assertThat(t.toList())
                    .containsExactly(
                        "strategy.waves[5]",
                        "waves are cumulative and must increase: '10%' does not exceed the earlier '50%'"));
    assertThat(problems(withWaves(List.of("1", "10%", "50%"))))
        .singleElement()
        .satisfies(p -> assertThat(p.message()).contains("last wave must be \"100%\""));
    assertThat(problems(withWaves(List.of("5", "5", "100%"))))
        .singleElement()
        .satisfies(p -> assertThat(p.field()).isEqualTo("strategy.waves[1]"));
    assertThat(problems(withWaves(List.of())))
        .extracting(RolloutSpecProblem::field)
        .containsExactly("strategy.waves");
  }

  @Test
  void otherFieldsAreCheckedWithSpecificMessages() {
    RolloutSpec spec =
        new RolloutSpec(
            "Bad Name",
            new RolloutTarget("pool in (a", List.of("H900"), null, List.of("n1", "n1"), false),
            new RolloutChange("no-such-config", "580.x"),
            new RolloutStrategy(
                List.of("100%"),
                "0%",
                0,
                "bad key!",
                -1,
                new FailureThreshold("101%", "-1", FailureAction.ROLLBACK),
                false,
                0,
                new MaintenanceWindow(List.of(), "22:00", "22:00", "Mars/Olympus"),
                null,
                null));

    assertThat(problems(spec))
        .extracting(RolloutSpecProblem::field)
        .containsExactlyInAnyOrder(
            "name",
            "target.gpuModels",
            "target.nodes",
            "target.selector",
            "change.migConfig",
            "change.driverVersion",
            "strategy.maxUnavailable",
            "strategy.maxZonesInFlight",
            "strategy.zoneLabel",
            "strategy.soakSeconds",
            "strategy.nodeTimeoutSeconds",
            "strategy.failureThreshold.perWave",
            "strategy.failureThreshold.total",
            "strategy.maintenanceWindow",
            "strategy.maintenanceWindow.timeZone");
  }

  @Test
  void aGpuBudgetIsCheckedWithTheFieldOfEachBound() {
    Map<String, Integer> perLabel = new LinkedHashMap<>();
    perLabel.put("team", 0);
    perLabel.put("bad key!", 4);
    perLabel.put("pool", null);
    perLabel.put("zone", 8);

    assertThat(problems(withBudget(0, perLabel)))
        .extracting(RolloutSpecProblem::field, RolloutSpecProblem::message)
        .containsExactlyInAnyOrder(
            tuple(
                "strategy.maxGpusOffline",
                "must be at least 1 GPU (or absent for no bound), found 0"),
            tuple(
                "strategy.maxGpusOfflinePer.team",
                "must be at least 1 GPU per value of label 'team', found 0"),
            tuple(
                "strategy.maxGpusOfflinePer.pool",
                "must be at least 1 GPU per value of label 'pool', found null"),
            tuple(
                "strategy.maxGpusOfflinePer.bad key!",
                catchThrowableOfType(
                        IllegalArgumentException.class, () -> LabelSelector.checkKey("bad key!"))
                    .getMessage()));
    assertThat(validator.check(withBudget(16, Map.of("team", 8))).spec().strategy())
        .satisfies(
            s -> {
              assertThat(s.maxGpusOffline()).isEqualTo(16);
              assertThat(s.maxGpusOfflinePer()).containsExactly(Map.entry("team", 8));
            });
  }

  private static RolloutSpec withBudget(Integer maxGpusOffline, Map<String, Integer> perLabel) {
    return new RolloutSpec(
        "budget",
        RolloutTarget.wholeFleet(),
        new RolloutChange("all-balanced", null),
        new RolloutStrategy(
            List.of("100%"), "2", null, null, 0, null, false, 600, null, maxGpusOffline, perLabel));
  }

  @Test
  void aChangeIsRequired() {
    assertThat(
            problems(
                new RolloutSpec(
                    "x",
                    RolloutTarget.wholeFleet(),
                    new RolloutChange(null, null),
                    strategy(List.of("100%"), "1"))))
        .extracting(RolloutSpecProblem::field)
        .containsExactly("change");
  }

  private List<RolloutSpecProblem> problems(RolloutSpec spec) {
    return catchThrowableOfType(RolloutSpecException.class, () -> validator.check(spec)).problems();
  }

  private static RolloutSpec withWaves(List<String> waves) {
    return new RolloutSpec(
        "x",
        RolloutTarget.wholeFleet(),
        new RolloutChange("all-balanced", null),
        strategy(waves, "1"));
  }

  static RolloutStrategy strategy(List<String> waves, String maxUnavailable) {
    return new RolloutStrategy(
        waves,
        maxUnavailable,
        1,
        null,
        0,
        new FailureThreshold("20%", "5%", FailureAction.PAUSE),
        false,
        600,
        null,
        null,
        null);
  }
}
