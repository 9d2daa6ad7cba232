package io.fleetwave.core.rollout.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.core.rollout.plan.FailureAction;
import io.fleetwave.events.rollout.NodeFailed;
import io.fleetwave.events.rollout.NodeSucceeded;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.WaveCompleted;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The decider with a drain: nodes leave service before their change and come back after it. */
class RolloutDeciderDrainTest {
  private static final Duration DRAIN = Duration.ofSeconds(60);
  private static final List<List<String>> WAVES = List.of(List.of("n1"), List.of("n2", "n3"));

  private static DeciderHarness harness(int maxUnavailable) {
    return new DeciderHarness(
        WAVES,
        DeciderHarness.rules(
            Map.of("n1", "a", "n2", "a", "n3", "a"),
            maxUnavailable,
            null,
            "0",
            "100%",
            FailureAction.PAUSE,
            false,
            Duration.ZERO),
        DRAIN);
  }

  @Test
  void aNodeSucceedsOnlyOnceItIsOutOfService() {
    DeciderHarness h = harness(1);
    h.settle();
    h.applyInFlight();

    h.settle();
    assertThat(h.run.nodeRun("n1").inFlight()).as("applied, but never drained").isTrue();

    h.takeOutOfService("n1");
    h.settle();
    assertThat(h.log).anyMatch(e -> e instanceof NodeSucceeded s && s.node().equals("n1"));
  }

  @Test
  void aNodeThatNeverLeavesServiceFailsOnceTheDrainBoundIsSpentOnTopOfItsTimeout() {
    DeciderHarness h = harness(1);
    h.settle();

    h.now = h.now.plus(Duration.ofSeconds(600));
    h.settle();
    assertThat(h.run.nodeRun("n1").inFlight()).isTrue();

    h.now = h.now.plus(DRAIN);
    h.settle();
    assertThat(h.run.nodeRun("n1").state()).isEqualTo(NodeState.FAILED);
    assertThat(h.run.nodeRun("n1").reason())
        .isEqualTo("no result within 660 s: not out of service yet (draining)");
  }

  @Test
  void theNodeTimeoutCountsFromWhenTheNodeLeftService() {
    DeciderHarness h = harness(1);
    h.settle();
    h.now = h.now.plus(Duration.ofSeconds(50));
    h.takeOutOfService("n1");

    h.now = h.now.plus(Duration.ofSeconds(599));
    h.settle();
    assertThat(h.run.nodeRun("n1").inFlight()).isTrue();

    h.now = h.now.plus(Duration.ofSeconds(1));
    h.settle();
    assertThat(h.log)
        .anyMatch(
            e ->
                e instanceof NodeFailed f
                    && f.node().equals("n1")
                    && f.reason().startsWith("no result within 600 s: spec generation 1"));
  }

  @Test
  void aNodeNotYetBackInServiceHoldsItsSlotAndItsWave() {
    DeciderHarness h = harness(1);
    h.settle();
    h.takeOutOfService("n1");
    h.applyInFlight();
    h.settle();
    assertThat(h.run.nodeRun("n1").state()).isEqualTo(NodeState.SUCCEEDED);
    assertThat(h.log).noneMatch(e -> e instanceof WaveCompleted);
    assertThat(h.started(Phase.FORWARD)).containsExactly("n1");

    h.returnToService("n1");
    h.settle();
    assertThat(h.log).contains(new WaveCompleted(1, 1, 0));
    assertThat(h.started(Phase.FORWARD)).containsExactly("n1", "n2");
  }
}
