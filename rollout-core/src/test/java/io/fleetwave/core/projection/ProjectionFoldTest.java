package io.fleetwave.core.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.EventsDropped;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.testfixtures.events.Events;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProjectionFoldTest {
  private static final Envelope<NodeEvent> REGISTERED =
      Events.envelope("n", 2, 0, Events.registered("n", HostKind.TALOS, "580", Map.of()));
  private static final Envelope<NodeEvent> INVENTORY =
      Events.envelope("n", 2, 1, Events.inventory(Events.H100, 1, MigMode.DISABLED));
  private static final Envelope<NodeEvent> BEAT = Events.envelope("n", 2, 2, Events.heartbeat(5));

  @Test
  void appliesEventsAfterTheStoredPositionAndKeepsTheNewestFactsAndInventory() {
    BatchChanges changes = ProjectionFold.fold(Map.of(), List.of(REGISTERED, INVENTORY, BEAT));

    assertThat(changes.applied()).containsExactly(REGISTERED, INVENTORY, BEAT);
    assertThat(changes.skipped()).isZero();
    NodeChange change = changes.nodes().getFirst();
    assertThat(change.position()).isEqualTo(new NodePosition(2, 2));
    assertThat(change.lastSeen()).isEqualTo(BEAT.time());
    assertThat(change.facts())
        .contains((io.fleetwave.events.node.NodeRegistered) REGISTERED.data());
    assertThat(change.inventory())
        .contains((io.fleetwave.events.node.GpuInventoryReported) INVENTORY.data());
  }

  @Test
  void skipsEventsAtOrBeforeTheStoredPosition() {
    BatchChanges changes =
        ProjectionFold.fold(
            Map.of("n", new NodePosition(2, 1)), List.of(REGISTERED, INVENTORY, BEAT));

    assertThat(changes.applied()).containsExactly(BEAT);
    assertThat(changes.skipped()).isEqualTo(2);
    assertThat(changes.nodes().getFirst().facts()).isEmpty();
    assertThat(changes.nodes().getFirst().inventory()).isEmpty();
  }

  @Test
  void aDuplicateOrAnOlderEventWithinTheBatchChangesNothing() {
    Envelope<NodeEvent> olderEpoch =
        Events.envelope("n", 1, 99, Events.registered("n", HostKind.COS, "470", Map.of()));
    BatchChanges changes =
        ProjectionFold.fold(Map.of(), List.of(REGISTERED, BEAT, INVENTORY, BEAT, olderEpoch));

    assertThat(changes.applied()).containsExactly(REGISTERED, BEAT);
    assertThat(changes.skipped()).isEqualTo(3);
    assertThat(changes.nodes().getFirst().inventory()).isEmpty();
    assertThat(changes.nodes().getFirst().position()).isEqualTo(new NodePosition(2, 2));
  }

  @Test
  void aNewEpochStartsAgainFromSequenceZero() {
    Envelope<NodeEvent> restarted = Events.envelope("n", 3, 0, Events.heartbeat(1));
    BatchChanges changes =
        ProjectionFold.fold(Map.of("n", new NodePosition(2, 500)), List.of(restarted));

    assertThat(changes.applied()).containsExactly(restarted);
    assertThat(changes.nodes().getFirst().position()).isEqualTo(new NodePosition(3, 0));
  }

  @Test
  void keepsNodesApart() {
    Envelope<NodeEvent> other = Events.envelope("m", 0, 0, Events.heartbeat(1));
    BatchChanges changes =
        ProjectionFold.fold(Map.of("n", new NodePosition(9, 9)), List.of(BEAT, other));

    assertThat(changes.applied()).containsExactly(other);
    assertThat(changes.nodes()).extracting(NodeChange::node).containsExactly("m");
  }

  @Test
  void theGapAnEventsDroppedDeclaresIsAcceptedAndTheRestatedStateApplies() {
    Envelope<NodeEvent> dropped =
        Events.envelope("n", 2, 9, new EventsDropped(3, 8, 6, "memory queue full"));
    Envelope<NodeEvent> restated =
        Events.envelope("n", 2, 10, Events.registered("n", HostKind.TALOS, "590", Map.of()));
    Envelope<NodeEvent> inventory =
        Events.envelope("n", 2, 11, Events.inventory(Events.H200, 2, MigMode.ENABLED));

    BatchChanges changes =
        ProjectionFold.fold(
            Map.of("n", new NodePosition(2, 2)), List.of(dropped, restated, inventory, dropped));

    assertThat(changes.applied()).containsExactly(dropped, restated, inventory);
    assertThat(changes.skipped()).isEqualTo(1);
    NodeChange change = changes.nodes().getFirst();
    assertThat(change.position()).isEqualTo(new NodePosition(2, 11));
    assertThat(change.facts()).contains((io.fleetwave.events.node.NodeRegistered) restated.data());
    assertThat(change.inventory())
        .contains((io.fleetwave.events.node.GpuInventoryReported) inventory.data());
  }

  @Test
  void theHistoryKeepsChangesOfStateAndLeavesHeartbeatsToTheNodeRow() {
    Envelope<NodeEvent> stopping = Events.envelope("n", 2, 3, Events.stopping());
    BatchChanges changes =
        ProjectionFold.fold(Map.of(), List.of(REGISTERED, INVENTORY, BEAT, stopping));

    assertThat(changes.applied()).containsExactly(REGISTERED, INVENTORY, BEAT, stopping);
    assertThat(changes.history()).containsExactly(REGISTERED, INVENTORY, stopping);
    assertThat(changes.nodes().getFirst().lastSeen()).isEqualTo(stopping.time());
  }

  @Test
  void countsTheEventsANodeNumberedThatNeverArrived() {
    Envelope<NodeEvent> afterGap = Events.envelope("n", 2, 7, Events.heartbeat(9));
    Envelope<NodeEvent> nextEpoch = Events.envelope("n", 4, 2, Events.heartbeat(1));

    assertThat(ProjectionFold.fold(Map.of(), List.of(REGISTERED, INVENTORY, BEAT)).nodes())
        .extracting(NodeChange::missed)
        .containsExactly(0L);
    // seqs 3..6 of epoch 2, then seqs 0 and 1 of epoch 4 (epoch 2's tail and epoch 3 are unseen)
    assertThat(
            ProjectionFold.fold(Map.of("n", new NodePosition(2, 2)), List.of(afterGap, nextEpoch))
                .nodes())
        .extracting(NodeChange::missed)
        .containsExactly(6L);
    // a node first seen after its first events: those are missed too
    assertThat(ProjectionFold.fold(Map.of(), List.of(afterGap)).nodes())
        .extracting(NodeChange::missed)
        .containsExactly(7L);
  }

  @Test
  void twoBatchesCountTheSameMissedEventsAsOne() {
    Envelope<NodeEvent> afterGap = Events.envelope("n", 2, 5, Events.heartbeat(9));
    BatchChanges first = ProjectionFold.fold(Map.of(), List.of(REGISTERED));
    BatchChanges second =
        ProjectionFold.fold(Map.of("n", new NodePosition(2, 0)), List.of(afterGap));

    assertThat(first.then(second).nodes().getFirst().missed())
        .isEqualTo(
            ProjectionFold.fold(Map.of(), List.of(REGISTERED, afterGap))
                .nodes()
                .getFirst()
                .missed())
        .isEqualTo(4L);
  }
}
