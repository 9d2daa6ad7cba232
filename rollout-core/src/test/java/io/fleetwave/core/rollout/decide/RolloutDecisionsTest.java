package io.fleetwave.core.rollout.decide;

import static io.fleetwave.core.rollout.decide.RolloutFixture.ID;
import static io.fleetwave.core.rollout.decide.RolloutFixture.T0;
import static io.fleetwave.core.rollout.decide.RolloutFixture.at;
import static io.fleetwave.core.rollout.decide.RolloutFixture.created;

import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.core.rollout.decide.OperatorRequest.Action;
import io.fleetwave.core.rollout.plan.DriverStep;
import io.fleetwave.core.rollout.plan.FailureAction;
import io.fleetwave.core.rollout.plan.GpuBudget;
import io.fleetwave.core.rollout.plan.GpuChange;
import io.fleetwave.core.rollout.plan.NodePlan;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.rollout.DriverInstallRequested;
import io.fleetwave.events.rollout.FailureCause;
import io.fleetwave.events.rollout.NodeFailed;
import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.NodeSucceeded;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.fleetwave.events.rollout.OsUpgradeRequested;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RestorePoint;
import io.fleetwave.events.rollout.RollbackStarted;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutPaused;
import io.fleetwave.events.rollout.WaveStarted;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * One decision at a time: given the log, when the decider is given this, it returns exactly that.
 */
class RolloutDecisionsTest {
  private static final List<List<String>> WAVES = List.of(List.of("n1"), List.of("n2", "n3"));
  private static final RolloutRules RULES =
      DeciderHarness.rules(
          Map.of("n1", "a", "n2", "a", "n3", "b"),
          2,
          null,
          "0",
          "100%",
          FailureAction.PAUSE,
          false,
          Duration.ZERO);
  private static final RestorePoint NOTHING = new RestorePoint(null, List.of());

  private static NodeStarted forward(String node, int wave, long generation) {
    return new NodeStarted(wave, node, Phase.FORWARD, generation, NOTHING);
  }

  @Test
  void aStartCarriesTheGenerationAfterTheDesiredSpecAndTheRestorePointFromIt() {
    GpuChange toMig =
        new GpuChange(
            0,
            "H100-SXM5-80GB",
            MigMode.DISABLED,
            true,
            List.of(),
            List.of(new GpuInstance("3g.40gb", 0, 4), new GpuInstance("3g.40gb", 4, 4)),
            true,
            0);
    NodePlan plan =
        new NodePlan(
            "n1",
            HostKind.UBUNTU,
            "a",
            List.of(toMig),
            List.of(),
            null,
            false,
            0,
            null,
            0,
            Map.of());
    RolloutRules rules = withPlan(plan);
    GpuSpec before = new GpuSpec(0, true, Map.of("1g.10gb", 7), 0, null);

    RolloutFixture.with(rules)
        .given(created(WAVES), new WaveStarted(1))
        .when(
            at(T0)
                .desired(
                    new NodeSpec(
                        "n1", 4, "570.86.15", List.of(before), GatePolicy.HOLD_UNTIL_APPLIED)))
        .expect(
            new NodeStarted(
                1, "n1", Phase.FORWARD, 5, new RestorePoint("570.86.15", List.of(before))));
  }

  @Test
  void aNodeWithoutDesiredSpecStartsAtGenerationOne() {
    RolloutFixture.with(RULES)
        .given(created(WAVES), new WaveStarted(1))
        .when(at(T0))
        .expect(forward("n1", 1, 1));
  }

  @Test
  void aDriverChangeIsRequestedWithItsStartUnderTheStartsId() {
    DriverArtifact container =
        new DriverArtifact.ContainerImage("580.95.05", "nvcr.io/nvidia/driver", "580.95.05", true);
    NodePlan plan =
        new NodePlan(
            "n1",
            HostKind.UBUNTU,
            "a",
            List.of(),
            List.of(),
            new DriverStep("570.86.15", "580.95.05", container, false),
            false,
            0,
            null,
            0,
            Map.of());

    RolloutFixture.with(withPlan(plan))
        .given(created(WAVES), new WaveStarted(1))
        .when(at(T0))
        .expect(
            new NodeStarted(1, "n1", Phase.FORWARD, 1, new RestorePoint("570.86.15", List.of())),
            new DriverInstallRequested(
                "n1", ID + ":n1:1", "580.95.05", "container-image", container.describe()));
  }

  @Test
  void anOsImageDriverIsAnOsUpgradeRequest() {
    NodePlan plan =
        new NodePlan(
            "n1",
            HostKind.TALOS,
            "a",
            List.of(),
            List.of(),
            new DriverStep(
                "570.86.15",
                "580.95.05",
                new DriverArtifact.OsImage("580.95.05", "talos", "1.11.2"),
                true),
            false,
            0,
            null,
            0,
            Map.of());

    RolloutFixture.with(withPlan(plan))
        .given(created(WAVES), new WaveStarted(1))
        .when(at(T0).desired(new NodeSpec("n1", 2, null, List.of(), GatePolicy.OPEN)))
        .expect(
            new NodeStarted(1, "n1", Phase.FORWARD, 3, new RestorePoint("570.86.15", List.of())),
            new OsUpgradeRequested("n1", ID + ":n1:3", "580.95.05", "talos", "1.11.2"));
  }

  @Test
  void anAgentRefusalFailsTheNodeWithTheRefusalAsItsCause() {
    FailureCause refused = new FailureCause.AgentRefused(1, "unplannable", "3 x 3g.40gb");

    RolloutFixture.with(RULES)
        .given(created(WAVES), new WaveStarted(1), forward("n1", 1, 1))
        .when(at(T0.plusSeconds(3)).seen("n1", new Observation(0, 1, refused, null, null)))
        .expect(new NodeFailed(1, "n1", Phase.FORWARD, refused, 3000));
  }

  @Test
  void aRefusalOfAnOlderGenerationIsNotThisStartsResult() {
    FailureCause refused = new FailureCause.AgentRefused(1, "unplannable", "3 x 3g.40gb");

    RolloutFixture.with(RULES)
        .given(created(WAVES), new WaveStarted(1), forward("n1", 1, 2))
        .when(at(T0).seen("n1", new Observation(0, 1, refused, null, null)))
        .expectNothing();
  }

  @Test
  void aNodeWithoutResultTimesOutNamingWhatItLacks() {
    RolloutFixture.with(RULES)
        .given(created(WAVES), new WaveStarted(1), forward("n1", 1, 1))
        .when(at(T0.plusSeconds(600)))
        .expect(
            new NodeFailed(
                1,
                "n1",
                Phase.FORWARD,
                new FailureCause.TimedOut(600, "spec generation 1 not applied (applied: 0)"),
                600_000));
  }

  @Test
  void aHandOverFailureOfTheCurrentStartFailsTheNode() {
    RolloutFixture.with(RULES)
        .given(created(WAVES), new WaveStarted(1), forward("n1", 1, 1))
        .when(
            at(T0.plusSeconds(1))
                .reported(new EffectReport.HandOverFailed(ID, "n1", 1, "spec refused: stale")))
        .expect(
            new NodeFailed(
                1,
                "n1",
                Phase.FORWARD,
                new FailureCause.HandOverFailed("spec refused: stale"),
                1000));
  }

  @Test
  void aReportAboutAnEarlierStartOfTheNodeIsDropped() {
    RolloutFixture.with(RULES)
        .given(created(WAVES), new WaveStarted(1), forward("n1", 1, 2))
        .when(at(T0).reported(new EffectReport.HandOverFailed(ID, "n1", 1, "late")))
        .expectNothing();
  }

  @Test
  void aNodeReportedOutOfServiceIsRecordedOnceAsTheDrainReportedIt() {
    NodeTakenOutOfService out =
        new NodeTakenOutOfService(
            "n1", Phase.FORWARD, true, false, List.of("p"), List.of(), null, null, 10);

    RolloutFixture.with(RULES, Duration.ofSeconds(60))
        .given(created(WAVES), new WaveStarted(1), forward("n1", 1, 1))
        .when(at(T0).reported(new EffectReport.TakenOutOfService(ID, "n1", 1, out)))
        .expect(out);
    RolloutFixture.with(RULES, Duration.ofSeconds(60))
        .given(created(WAVES), new WaveStarted(1), forward("n1", 1, 1), out)
        .when(at(T0).reported(new EffectReport.TakenOutOfService(ID, "n1", 1, out)))
        .expectNothing();
  }

  @Test
  void aDrainThatCannotAnswerAfterTheResultKeepsTheNodeOutWithTheReason() {
    NodeTakenOutOfService out =
        new NodeTakenOutOfService(
            "n1", Phase.FORWARD, true, false, List.of(), List.of(), null, null, 10);

    RolloutFixture.with(RULES, Duration.ofSeconds(60))
        .given(
            created(WAVES),
            new WaveStarted(1),
            forward("n1", 1, 1),
            out,
            new NodeSucceeded(1, "n1", Phase.FORWARD, 5))
        .when(at(T0).reported(new EffectReport.ReleaseFailed(ID, "n1", 1, "no answer in 60 s")))
        .expect(new NodeKeptOutOfService("n1", Phase.FORWARD, List.of(), "no answer in 60 s"));
  }

  @Test
  void anOperatorsPauseNamesTheActorAndIsAnsweredDone() {
    UUID pause = new UUID(0, 7);
    RolloutFixture.with(RULES)
        .given(created(WAVES), new WaveStarted(1))
        .when(at(T0).request(new OperatorRequest(pause, Action.PAUSE, "maintenance", "alice")))
        .expect(new RolloutPaused("paused: maintenance", "alice"))
        .expectVerdicts(new OperatorOutcome.Done(pause));
  }

  @Test
  void aRequestThatDoesNotApplyIsRefusedWithTheStateAndDecidesNothing() {
    UUID resume = new UUID(0, 8);
    RolloutFixture.with(RULES)
        .given(created(WAVES), new WaveStarted(1))
        .when(at(T0).request(new OperatorRequest(resume, Action.RESUME, null, "bob")))
        .expect()
        .expectVerdicts(
            new OperatorOutcome.Refused(
                resume,
                "cannot resume a rollout that is running (and not waiting for a promotion)"));
  }

  @Test
  void aThresholdCrossedIsTheSystemsDecision() {
    FailureCause refused = new FailureCause.AgentRefused(1, "unplannable", "x");
    RolloutRules rollback =
        DeciderHarness.rules(
            Map.of("n1", "a", "n2", "a", "n3", "b"),
            2,
            null,
            "0",
            "100%",
            FailureAction.ROLLBACK,
            false,
            Duration.ZERO);

    RolloutFixture.with(rollback)
        .given(
            created(WAVES),
            new WaveStarted(1),
            forward("n1", 1, 1),
            new NodeFailed(1, "n1", Phase.FORWARD, refused, 5))
        .when(at(T0))
        .expect(
            new RollbackStarted(
                "wave 1: 1 of 1 nodes failed (per-wave threshold 0 allows 0): n1 ("
                    + refused.describe()
                    + ")",
                RolloutEvent.SYSTEM));
  }

  @Test
  void nodesStartInPlanOrderIntoTheFreeSlotsWithinTheZoneLimit() {
    RolloutRules oneZone =
        DeciderHarness.rules(
            Map.of("n1", "a", "n2", "a", "n3", "b"),
            2,
            1,
            "0",
            "100%",
            FailureAction.PAUSE,
            false,
            Duration.ZERO);

    RolloutFixture.with(oneZone)
        .given(
            created(List.of(List.of("n1"), List.of("n3", "n2"))),
            new WaveStarted(1),
            forward("n1", 1, 1),
            new NodeSucceeded(1, "n1", Phase.FORWARD, 5),
            new io.fleetwave.events.rollout.WaveCompleted(1, 1, 0),
            new WaveStarted(2))
        .when(at(T0))
        .expect(forward("n3", 2, 1));
  }

  private static RolloutRules withPlan(NodePlan plan) {
    Map<String, NodePlan> plans = new java.util.HashMap<>(RULES.plans());
    plans.put(plan.node(), plan);
    return new RolloutRules(
        RULES.maxUnavailable(),
        RULES.maxZonesInFlight(),
        RULES.soak(),
        RULES.perWave(),
        RULES.total(),
        RULES.action(),
        RULES.manualPromotion(),
        RULES.nodeTimeout(),
        RULES.window(),
        plans,
        RULES.migConfig(),
        GpuBudget.NONE);
  }
}
