package io.fleetwave.controlplane.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.projection.NodeFacts;
import io.fleetwave.controlplane.readmodel.FleetTally.CountedGpu;
import io.fleetwave.controlplane.readmodel.FleetTally.HeldNode;
import io.fleetwave.core.projection.NodePosition;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.testfixtures.events.Events;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** The in-memory fleet tally: its counts, the projection's fold over it, its comparison. */
class FleetTallyTest {
  private static final CountedGpu H100_ON =
      new CountedGpu("0x233010de", "NVIDIA H100 80GB HBM3", "enabled", "healthy");
  private static final CountedGpu H100_FAILED =
      new CountedGpu("0x233010DE", "NVIDIA H100 80GB HBM3", "disabled", "failed");
  private static final CountedGpu L4 =
      new CountedGpu("0x27B810DE", "NVIDIA L4", "unsupported", "healthy");

  @Test
  void countsAsTheSqlCountDoes() {
    FleetTally tally = new FleetTally();
    tally.put("a", held(new NodePosition(1, 3), "ubuntu", H100_ON, H100_FAILED));
    tally.put("b", held(new NodePosition(1, 1), "talos", L4));
    tally.put("c", HeldNode.ensured("c"));

    assertThat(tally.summary())
        .isEqualTo(
            new FleetSummary(
                3,
                3,
                Map.of("ubuntu", 1L, "talos", 1L, "unregistered", 1L),
                List.of(
                    // The model by its upper-cased id (both spellings are one model), on one node.
                    new FleetSummary.GpuModelCount("0x233010DE", "NVIDIA H100 80GB HBM3", 2, 1),
                    new FleetSummary.GpuModelCount("0x27B810DE", "NVIDIA L4", 1, 1)),
                Map.of("enabled", 1L, "disabled", 1L, "unsupported", 1L),
                Map.of("healthy", 2L, "failed", 1L)));
  }

  @Test
  void appliesEventsAsTheProjectionFoldsThem() {
    FleetTally tally = new FleetTally();
    var registered =
        Events.envelope("n", 1, 0, Events.registered("n", HostKind.COS, "580.95.05", Map.of()));
    var h100 = Events.envelope("n", 1, 1, Events.inventory(Events.H100, 4, MigMode.ENABLED));
    var l4 = Events.envelope("n", 1, 2, Events.inventory(Events.L4, 1, MigMode.DISABLED));

    assertThat(tally.apply(List.of(registered, h100))).isEqualTo(2);
    assertThat(tally.summary().gpuModels()).extracting("pciDeviceId").containsExactly("0x233010DE");
    assertThat(tally.apply(List.of(l4, h100, registered))).isEqualTo(1);

    FleetSummary summary = tally.summary();
    assertThat(summary.hostKinds()).isEqualTo(Map.of("cos", 1L));
    // The replaced model is gone, not counted as zero.
    assertThat(summary.gpuModels()).extracting("pciDeviceId").containsExactly("0x27B810DE");
    assertThat(summary.totalGpus()).isEqualTo(1);
    assertThat(tally.get("n").position()).isEqualTo(new NodePosition(1, 2));

    // A heartbeat moves the position and leaves the counts.
    assertThat(tally.apply(List.of(Events.envelope("n", 1, 3, Events.heartbeat(3))))).isEqualTo(1);
    assertThat(tally.get("n").position()).isEqualTo(new NodePosition(1, 3));
    assertThat(tally.get("n").node().gpus()).hasSize(1);
    assertThat(tally.summary()).isEqualTo(summary);
  }

  @Test
  void aHeartbeatAloneCountsAnUnregisteredNodeAndAnOlderEpochIsSkipped() {
    FleetTally tally = new FleetTally();
    tally.apply(List.of(Events.envelope("n", 2, 0, Events.heartbeat(1))));

    assertThat(tally.summary().hostKinds()).isEqualTo(Map.of("unregistered", 1L));
    assertThat(tally.apply(List.of(Events.envelope("n", 1, 9, Events.heartbeat(1))))).isZero();
  }

  @Test
  void theComparisonSetsOnlyNodesThatDifferAtTheSamePosition() {
    FleetTally tally = new FleetTally();
    HeldNode a = held(new NodePosition(1, 3), "ubuntu", H100_ON);
    HeldNode b = held(new NodePosition(1, 1), "talos", L4);
    tally.put("a", a);
    tally.put("b", b);

    FleetTally.Comparison comparison =
        tally.compareWith(
            Map.of(
                "a", held(new NodePosition(1, 3), "ubuntu", H100_FAILED),
                "b", held(new NodePosition(1, 0), "cos"),
                "c", HeldNode.ensured("c")));

    assertThat(comparison).isEqualTo(new FleetTally.Comparison(1, 2, List.of("a")));
    assertThat(tally.get("a").node().gpus())
        .extracting(CountedGpu::of)
        .containsExactly(H100_FAILED);
    assertThat(tally.get("b")).isEqualTo(b);
    assertThat(tally.summary().health()).isEqualTo(Map.of("failed", 1L, "healthy", 1L));
  }

  @Test
  void aHeldNodeLeavesOutWhatTheControlFactsAddAndTheReconcileSteps() {
    FleetTally tally = new FleetTally();
    var accepted =
        Events.envelope(
            "n",
            1,
            0,
            new SpecAccepted(
                3, List.of(new PlannedStep(0, StepKind.SET_MIG_MODE, 0, "enabled", 60_000))));
    var applied = Events.envelope("n", 1, 1, new SpecApplied(3));
    tally.apply(List.of(accepted, applied));

    HeldNode held = tally.get("n");
    assertThat(held.reconcile().appliedGeneration()).isEqualTo(3);
    assertThat(held.reconcile().steps()).isEmpty();
    assertThat(held.node().appliedGeneration()).isZero();
    NodeView read = held.read(4L, null, null);
    assertThat(read.appliedGeneration()).isEqualTo(3);
    assertThat(read.desiredGeneration()).isEqualTo(4);
    assertThat(read.converged()).isFalse();
    assertThat(held.read(3L, Instant.EPOCH, "admin"))
        .extracting(NodeView::converged, NodeView::revoked, NodeView::revokedBy)
        .containsExactly(true, true, "admin");
  }

  @Test
  void lastSeenIsKeptToTheMicrosecondAsPostgresKeepsIt() {
    FleetTally tally = new FleetTally();
    Instant at = Instant.parse("2026-12-07T10:00:00.123456789Z");
    tally.apply(List.of(Envelope.of(URI.create("urn:test"), "n", at, 1, 0, Events.heartbeat(1))));

    assertThat(tally.get("n").node().lastSeen())
        .isEqualTo(Instant.parse("2026-12-07T10:00:00.123456Z"));
  }

  /**
   * Values held once for all nodes are not taken out when the last node holding them changes: what
   * one node alone has (a label naming its host, here changed at every registration) fills the map
   * to its bound and no further, and each node still reads its own value.
   */
  @Test
  void valuesHeldOnceForAllNodesAreBounded() {
    FleetTally tally = new FleetTally();
    int nodes = 1_000;
    for (int round = 0; round < 2 * FleetTally.SHARED_MOST / nodes; round++) {
      List<Envelope<NodeEvent>> events = new ArrayList<>();
      for (int n = 0; n < nodes; n++) {
        String node = "node-" + n;
        events.add(
            Events.envelope(
                node,
                1,
                round,
                Events.registered(
                    node, HostKind.UBUNTU, "580.95.05", Map.of("host", node + "-" + round))));
      }
      tally.apply(events);
    }

    assertThat(tally.sharedValues()).isEqualTo(FleetTally.SHARED_MOST);
    int last = 2 * FleetTally.SHARED_MOST / nodes - 1;
    assertThat(tally.get("node-7").node().facts().labels()).containsEntry("host", "node-7-" + last);
  }

  /** A node of these GPUs, indexed in order, as the counts see it. */
  private static HeldNode held(NodePosition at, String hostKind, CountedGpu... gpus) {
    List<NodeView.GpuView> views = new ArrayList<>();
    for (int i = 0; i < gpus.length; i++) {
      CountedGpu gpu = gpus[i];
      views.add(
          new NodeView.GpuView(
              i,
              "GPU-" + i,
              "0000:0" + i + ":00.0",
              gpu.pciDeviceId(),
              gpu.product(),
              81_559,
              true,
              gpu.migMode(),
              gpu.migMode(),
              List.of(),
              0,
              0,
              gpu.health()));
    }
    return new HeldNode(
        at,
        NodeView.observed(
            "n",
            new NodeFacts(
                hostKind, null, null, null, null, null, null, null, null, null, null, Map.of(),
                Map.of()),
            null,
            views),
        null);
  }

  /**
   * Counts kept as nodes change equal the counts of the same nodes put into a new tally: whatever
   * the order of changes, taking a node's old contribution away leaves nothing behind.
   */
  @Property(tries = 200)
  void countsKeptAsNodesChangeEqualCountsMadeAfresh(
      @ForAll @Size(max = 60) List<@IntRange(max = 9_999) Integer> changes) {
    List<CountedGpu> gpus = List.of(H100_ON, H100_FAILED, L4);
    List<String> kinds = new ArrayList<>(List.of("ubuntu", "talos", "cos"));
    FleetTally kept = new FleetTally();
    for (int change : changes) {
      List<CountedGpu> nodeGpus = new ArrayList<>();
      for (int g = 0; g < change % 5; g++) {
        nodeGpus.add(gpus.get((change / 7 + g) % gpus.size()));
      }
      String kind = change % 4 == 0 ? null : kinds.get(change % kinds.size());
      kept.put(
          "node-" + change % 6,
          held(new NodePosition(1, change), kind, nodeGpus.toArray(CountedGpu[]::new)));
    }
    FleetTally afresh = new FleetTally();
    kept.nodes().forEach(afresh::put);

    assertThat(kept.summary()).isEqualTo(afresh.summary());
  }
}
