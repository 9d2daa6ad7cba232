package io.fleetwave.core.rollout.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.core.rollout.plan.FailureAction;
import io.fleetwave.core.rollout.plan.GpuBudget;
import io.fleetwave.events.rollout.FailureCause;
import io.fleetwave.events.rollout.NodeFailed;
import io.fleetwave.events.rollout.NodeSkipped;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RollbackStarted;
import io.fleetwave.events.rollout.RolloutCompleted;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutPaused;
import io.fleetwave.events.rollout.WaveStarted;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RolloutDeciderTest {
  private static final List<List<String>> WAVES =
      List.of(
          List.of("n1"), List.of("n2", "n3", "n4"), List.of("n5", "n6", "n7", "n8", "n9", "n10"));

  private static Map<String, String> zones(String... alternating) {
    Map<String, String> zones = new LinkedHashMap<>();
    for (int i = 1; i <= 10; i++) {
      zones.put("n" + i, alternating[i % alternating.length]);
    }
    return zones;
  }

  private static DeciderHarness harness(
      int maxUnavailable, String perWave, FailureAction action, boolean manual, Duration soak) {
    return new DeciderHarness(
        WAVES,
        DeciderHarness.rules(
            zones("a"), maxUnavailable, null, perWave, "100%", action, manual, soak));
  }

  @Test
  void wavesRunInOrderWithinMaxUnavailableAndEveryNodeStartsOnce() {
    DeciderHarness h = harness(2, "0", FailureAction.PAUSE, false, Duration.ZERO);

    h.runAllApplying();

    assertThat(h.started(Phase.FORWARD))
        .containsExactly("n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10");
    assertThat(h.maxInFlight).isEqualTo(2);
    assertThat(h.log.getLast()).isEqualTo(new RolloutCompleted(false, 10, 0));
    assertThat(h.run.status()).isEqualTo(RunStatus.COMPLETED);
  }

  @Test
  void theNextWaveWaitsUntilEveryNodeOfTheCanaryFinished() {
    DeciderHarness h = harness(5, "0", FailureAction.PAUSE, false, Duration.ZERO);

    h.settle();

    assertThat(h.started(Phase.FORWARD)).containsExactly("n1");
    assertThat(h.log).doesNotContain(new WaveStarted(2));
  }

  @Test
  void aPendingNodeRevokedIsSkippedAsRevokedAndNeverStarted() {
    DeciderHarness h = harness(2, "0", FailureAction.PAUSE, false, Duration.ZERO);
    h.settle();
    h.revoked.add("n3");

    h.runAllApplying();

    assertThat(h.started(Phase.FORWARD)).doesNotContain("n3").hasSize(9);
    assertThat(h.log).contains(new NodeSkipped(2, "n3", "revoked"));
    assertThat(h.run.nodeRun("n3").state()).isEqualTo(NodeState.SKIPPED);
    assertThat(h.run.nodeRun("n3").reason()).isEqualTo("revoked");
    assertThat(h.log.getLast()).isEqualTo(new RolloutCompleted(false, 9, 0));
  }

  @Test
  void aNodeInFlightRevokedFailsAsRevokedWhateverItReports() {
    DeciderHarness h = harness(1, "1", FailureAction.PAUSE, false, Duration.ZERO);
    h.settle();
    h.applyInFlight(); // n1 reports its generation applied, but it is revoked
    h.revoked.add("n1");

    h.settle();

    NodeFailed failed =
        (NodeFailed) h.log.stream().filter(NodeFailed.class::isInstance).findFirst().orElseThrow();
    assertThat(failed.node()).isEqualTo("n1");
    assertThat(failed.cause()).isEqualTo(new FailureCause.Revoked());
    assertThat(h.run.nodeRun("n1").reason()).isEqualTo("revoked");
    assertThat(h.run.failed(Phase.FORWARD, 0)).isEqualTo(1);
  }

  @Test
  void aZoneLimitKeepsNodesOfOtherZonesWaiting() {
    DeciderHarness h =
        new DeciderHarness(
            WAVES,
            DeciderHarness.rules(
                zones("a", "b"), 10, 1, "0", "100%", FailureAction.PAUSE, false, Duration.ZERO));
    h.throughCanary();

    List<String> inFlight = h.run.inFlight().stream().map(NodeRun::node).toList();
    assertThat(inFlight).isNotEmpty();
    assertThat(inFlight.stream().map(h.rules::zone).distinct()).hasSize(1);
  }

  @Test
  void aFailureOverThePerWaveThresholdPausesNamingTheNodeAndResumeAcceptsIt() {
    DeciderHarness h = harness(1, "0", FailureAction.PAUSE, false, Duration.ZERO);
    h.settle();
    h.refuse("n1", "the agent refused generation 1 (unplannable): 3 x 3g.40gb do not fit");

    h.settle();

    assertThat(h.run.status()).isEqualTo(RunStatus.PAUSED);
    assertThat(h.run.statusReason())
        .contains("wave 1: 1 of 1 nodes failed", "allows 0", "n1 (the agent refused");
    assertThat(h.run.inFlight()).isEmpty();

    h.request(OperatorRequest.Action.RESUME);
    h.runAllApplying();

    assertThat(h.run.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(h.started(Phase.FORWARD)).hasSize(10).doesNotHaveDuplicates();
  }

  @Test
  void aFailureWithinThePerWaveShareDoesNotStopTheRollout() {
    DeciderHarness h = harness(3, "34%", FailureAction.PAUSE, false, Duration.ZERO);
    h.throughCanary();
    h.refuse("n2", "reset refused");
    h.runAllApplying();

    assertThat(h.run.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(h.log).contains(new RolloutCompleted(false, 9, 1));
  }

  @Test
  void aNodeWithoutResultFailsAtItsTimeoutAndFreesItsSlot() {
    DeciderHarness h = harness(1, "1", FailureAction.PAUSE, false, Duration.ZERO);
    h.settle();
    h.now = h.now.plus(Duration.ofSeconds(601));

    h.settle();

    NodeFailed failed =
        (NodeFailed) h.log.stream().filter(NodeFailed.class::isInstance).findFirst().orElseThrow();
    assertThat(failed.node()).isEqualTo("n1");
    assertThat(failed.reason()).contains("no result within 600 s", "spec generation 1 not applied");
    assertThat(h.started(Phase.FORWARD)).contains("n2");
  }

  @Test
  void rollbackRestoresEveryTouchedNodeNewestWaveFirstAndEnds() {
    DeciderHarness h = harness(2, "0", FailureAction.ROLLBACK, false, Duration.ZERO);
    h.throughCanary(); // n1 done; n2, n3 in flight
    h.applyInFlight();
    h.refuse("n2", "step failed");

    h.settle();

    assertThat(h.log).anyMatch(RollbackStarted.class::isInstance);
    h.runAllApplying();
    List<String> back = h.started(Phase.ROLLBACK);
    assertThat(back).containsExactlyInAnyOrder("n1", "n2", "n3");
    assertThat(back.getLast()).isEqualTo("n1");
    assertThat(h.run.status()).isEqualTo(RunStatus.ROLLED_BACK);
    assertThat(h.log.getLast()).isEqualTo(new RolloutCompleted(true, 3, 0));
    assertThat(h.started(Phase.FORWARD)).doesNotContain("n4", "n5");
  }

  @Test
  void aNodeRevokedBeforeItsRollbackIsSkippedNotSentTheRollbackSpec() {
    DeciderHarness h = harness(2, "0", FailureAction.ROLLBACK, false, Duration.ZERO);
    h.throughCanary(); // n1 done; n2, n3 in flight
    h.applyInFlight();
    h.refuse("n2", "step failed");
    h.revoked.add("n1"); // the canary, waiting for its rollback, is revoked

    h.settle();
    h.runAllApplying();

    assertThat(h.started(Phase.ROLLBACK)).containsExactlyInAnyOrder("n2", "n3");
    assertThat(h.log).contains(new NodeSkipped(1, "n1", "revoked"));
    assertThat(h.run.nodeRun("n1").state()).isEqualTo(NodeState.SKIPPED);
    assertThat(h.run.nodeRun("n1").phase()).isEqualTo(Phase.ROLLBACK);
    assertThat(h.run.nodeRun("n1").forwardOutcome()).isEqualTo(NodeState.SUCCEEDED);
    assertThat(h.run.status()).isEqualTo(RunStatus.ROLLED_BACK);
    assertThat(h.log.getLast()).isEqualTo(new RolloutCompleted(true, 2, 0));
  }

  @Test
  void manualPromotionHoldsEachWaveUntilPromoted() {
    DeciderHarness h = harness(10, "0", FailureAction.PAUSE, true, Duration.ZERO);
    h.throughCanary();

    assertThat(h.started(Phase.FORWARD)).containsExactly("n1");
    assertThat(h.decider.awaitingPromotion(h.run)).isTrue();

    h.request(OperatorRequest.Action.PROMOTE);
    h.runAllApplying();

    assertThat(h.started(Phase.FORWARD)).containsExactly("n1", "n2", "n3", "n4");
  }

  @Test
  void theSoakDelaysTheNextWaveAndItsHealthGateFailsANodeThatTurnedSick() {
    DeciderHarness h = harness(10, "0", FailureAction.PAUSE, false, Duration.ofSeconds(60));
    h.throughCanary();
    assertThat(h.log).doesNotContain(new WaveStarted(2));

    h.fleet.put("n1", new Observation(1, 0, null, null, "GPU 0 failed"));
    h.now = h.now.plus(Duration.ofSeconds(60));
    h.settle();

    assertThat(h.log)
        .anyMatch(
            e ->
                e instanceof NodeFailed f
                    && f.reason().contains("unhealthy after the 60 s soak: GPU 0 failed"));
    assertThat(h.run.status()).isEqualTo(RunStatus.PAUSED);
  }

  @Test
  void requestsThatDoNotApplyAreRefusedWithTheState() {
    DeciderHarness h = harness(1, "0", FailureAction.PAUSE, false, Duration.ZERO);
    h.request(OperatorRequest.Action.RESUME);
    h.request(OperatorRequest.Action.PROMOTE);

    h.settle();

    assertThat(h.refusals)
        .containsExactly(
            "cannot resume a rollout that is running (and not waiting for a promotion)",
            "cannot promote a rollout that is running (and not waiting for a promotion)");
  }

  @Test
  void pauseStopsNewStartsWhileInFlightNodesFinish() {
    DeciderHarness h = harness(1, "0", FailureAction.PAUSE, false, Duration.ZERO);
    h.settle();
    h.request(OperatorRequest.Action.PAUSE);
    h.settle();
    h.applyInFlight();

    h.settle();

    assertThat(h.run.status()).isEqualTo(RunStatus.PAUSED);
    assertThat(h.run.nodeRun("n1").state()).isEqualTo(NodeState.SUCCEEDED);
    assertThat(h.started(Phase.FORWARD)).containsExactly("n1");
    assertThat(h.log)
        .noneMatch(e -> e instanceof RolloutPaused p && !p.reason().startsWith("paused: "));
  }

  @Test
  void aDuplicateEventChangesNothing() {
    DeciderHarness h = harness(1, "0", FailureAction.PAUSE, false, Duration.ZERO);
    h.settle();
    long seq = h.run.seq();
    RolloutEvent again = h.log.getLast();

    boolean applied =
        h.run.apply(
            io.fleetwave.events.Envelope.of(
                java.net.URI.create("t:x"), h.id.toString(), h.now, 0, seq, again));

    assertThat(applied).isFalse();
    assertThat(h.run.seq()).isEqualTo(seq);
  }

  @Test
  void nothingStartsOutsideTheMaintenanceWindow() {
    RolloutRules base =
        DeciderHarness.rules(
            zones("a"), 2, null, "0", "100%", FailureAction.PAUSE, false, Duration.ZERO);
    RolloutRules windowed =
        new RolloutRules(
            base.maxUnavailable(),
            base.maxZonesInFlight(),
            base.soak(),
            base.perWave(),
            base.total(),
            base.action(),
            base.manualPromotion(),
            base.nodeTimeout(),
            new io.fleetwave.core.rollout.plan.MaintenanceWindow(
                List.of(java.time.DayOfWeek.SUNDAY), "22:00", "02:00", "UTC"),
            base.plans(),
            null,
            GpuBudget.NONE);
    DeciderHarness h = new DeciderHarness(WAVES, windowed);
    h.now = java.time.Instant.parse("2026-11-29T12:00:00Z"); // a Sunday, noon

    h.settle();
    assertThat(h.log).hasSize(1); // only RolloutCreated

    h.now = java.time.Instant.parse("2026-11-30T01:30:00Z"); // Monday 01:30: Sunday's window
    h.settle();
    assertThat(h.started(Phase.FORWARD)).containsExactly("n1");

    h.applyInFlight();
    h.now = java.time.Instant.parse("2026-11-30T02:00:00Z"); // closed again
    h.settle();
    assertThat(h.log).doesNotContain(new WaveStarted(2));
  }
}
