package io.fleetwave.core.rollout.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.NodeFailed;
import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RestorePoint;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutEvent;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** What the fold keeps of a node's time out of service, across a failure and its rollback. */
class RolloutRunDrainTest {
  private final UUID id = UUID.randomUUID();
  private final Instant t0 = Instant.parse("2026-11-29T12:00:00Z");
  private long seq;

  private Envelope<RolloutEvent> at(long second, RolloutEvent event) {
    return Envelope.of(
        URI.create("test:engine"), id.toString(), t0.plusSeconds(second), 0, ++seq, event);
  }

  @Test
  void aFailedNodeWaitsToBeKeptOutAndItsRollbackRemembersTheForwardDrain() {
    RolloutRun run =
        RolloutRun.from(
            id, at(0, new RolloutCreated("r", List.of(List.of("n1")), null, null, "alice")));
    run.apply(at(1, new NodeStarted(1, "n1", Phase.FORWARD, 1, new RestorePoint(null, List.of()))));
    NodeRun node = run.nodeRun("n1");
    assertThat(node.outOfService()).isFalse();

    run.apply(
        at(
            3,
            new NodeTakenOutOfService(
                "n1",
                Phase.FORWARD,
                true,
                false,
                List.of(),
                List.of("dcgm"),
                "all-disabled",
                null,
                0)));
    assertThat(node.outOfServiceAt()).isEqualTo(t0.plusSeconds(3));
    run.apply(
        at(
            5,
            new NodeFailed(
                1,
                "n1",
                Phase.FORWARD,
                new io.fleetwave.events.rollout.FailureCause.Unclassified("refused"),
                4000)));
    assertThat(node.releasePending()).isTrue();
    assertThat(run.releasePending()).containsExactly(node);
    run.apply(at(6, new NodeKeptOutOfService("n1", Phase.FORWARD, List.of("dcgm"), "refused")));
    assertThat(node.releasePending()).isFalse();

    run.apply(at(7, new NodeStarted(1, "n1", Phase.ROLLBACK, 2, null)));
    assertThat(node.outOfService()).as("a new phase starts in service").isFalse();
    assertThat(node.forwardOutOfService()).isTrue();
    assertThat(node.migConfigBefore()).isEqualTo("all-disabled");
    run.apply(
        at(
            8,
            new NodeTakenOutOfService(
                "n1", Phase.ROLLBACK, true, false, List.of(), List.of(), "all-balanced", null, 0)));
    assertThat(node.migConfigBefore()).as("the forward's value stays").isEqualTo("all-disabled");
  }
}
