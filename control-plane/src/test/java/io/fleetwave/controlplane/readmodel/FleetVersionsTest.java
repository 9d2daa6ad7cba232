package io.fleetwave.controlplane.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.projection.NodeFacts;
import io.fleetwave.controlplane.readmodel.FleetVersions.Desired;
import io.fleetwave.controlplane.readmodel.FleetVersions.Versions;
import io.fleetwave.core.projection.ReconcileState;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testfixtures.events.NodeRegisteredBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The version distribution from memory, as reports.version_distribution counts the tables. */
class FleetVersionsTest {
  private static final Desired NONE = new Desired(null, null);

  @Test
  void theOsIsItsIdAndVersionWithTheSpacesAtTheEndsTrimmed() {
    assertThat(FleetVersions.os("ubuntu", "24.04")).isEqualTo("ubuntu 24.04");
    assertThat(FleetVersions.os("rhel", "")).isEqualTo("rhel");
    assertThat(FleetVersions.os(null, null)).isEmpty();
    // trim() takes spaces only, as PostgreSQL's does.
    assertThat(FleetVersions.os("  ubuntu", "24.04\t ")).isEqualTo("ubuntu 24.04\t");
  }

  /**
   * A node drifts when it has not converged to its desired generation (not applied, failed at or
   * after it, booted since) or its spec asks for a driver it does not run (none running included).
   */
  @Test
  void aNodeDriftsWhenNotConvergedOrRunningAnotherDriverThanDesired() {
    NodeView node = node("580.95.05");
    ReconcileState applied3 = reconcile(3, null, false);

    assertThat(FleetVersions.drifted(node, null, NONE)).isFalse();
    assertThat(FleetVersions.drifted(node, applied3, new Desired(3L, null))).isFalse();
    assertThat(FleetVersions.drifted(node, applied3, new Desired(3L, "580.95.05"))).isFalse();
    assertThat(FleetVersions.drifted(node, applied3, new Desired(2L, "580.95.05"))).isFalse();
    assertThat(FleetVersions.drifted(node, applied3, new Desired(4L, null))).isTrue();
    assertThat(FleetVersions.drifted(node, applied3, new Desired(3L, "580.95.06"))).isTrue();
    assertThat(FleetVersions.drifted(node("(none)"), applied3, new Desired(3L, "(none)")))
        .isFalse();
    assertThat(FleetVersions.drifted(node(null), applied3, new Desired(3L, "(none)"))).isTrue();
    assertThat(FleetVersions.drifted(node, reconcile(3, 3L, false), new Desired(3L, null)))
        .isTrue();
    assertThat(FleetVersions.drifted(node, reconcile(3, 2L, false), new Desired(3L, null)))
        .isFalse();
    assertThat(FleetVersions.drifted(node, reconcile(3, null, true), new Desired(3L, null)))
        .isTrue();
  }

  /**
   * Grouped by zone, pool, driver, OS and layout, in the query's order: zone, pool, most drifted,
   * most nodes, then driver, OS and layout, strings in the C collation's order (by code point: a
   * character past U+FFFF after U+FFFD, where Java's compareTo puts it before).
   */
  @Test
  void rowsAreGroupedAndOrderedAsTheQueryOrdersThem() {
    FleetVersions.Counts counts = new FleetVersions.Counts();
    Versions a = new Versions("zone-a", "p", "580", "ubuntu 24.04", "MIG off");
    Versions aOtherOs = new Versions("zone-a", "p", "580", "talos 1.11.2", "MIG off");
    Versions aOtherDriver = new Versions("zone-a", "p", "570", "ubuntu 24.04", "MIG off");
    Versions aOtherPool = new Versions("zone-a", "(none)", "580", "ubuntu 24.04", "MIG off");
    Versions astral = new Versions("zone-\uD83D\uDE00", "p", "580", "ubuntu 24.04", "MIG off");
    Versions replacement = new Versions("zone-\uFFFD", "p", "580", "ubuntu 24.04", "MIG off");
    counts.add(a, false);
    counts.add(a, true);
    counts.add(aOtherOs, false);
    counts.add(aOtherDriver, false);
    counts.add(aOtherOs, false);
    counts.add(aOtherPool, false);
    counts.add(astral, false);
    counts.add(replacement, false);

    assertThat(counts.rows())
        .containsExactly(
            row(aOtherPool, 1, 0),
            row(a, 2, 1),
            row(aOtherOs, 2, 0),
            row(aOtherDriver, 1, 0),
            row(replacement, 1, 0),
            row(astral, 1, 0));
  }

  @Test
  void atMostTheQuerysLimitOfRowsMostDriftedFirst() {
    FleetVersions.Counts counts = new FleetVersions.Counts();
    for (int i = 0; i <= VersionQueries.MAX_ROWS; i++) {
      counts.add(new Versions("z", "p", "d-" + i, "os", "MIG off"), i == VersionQueries.MAX_ROWS);
    }

    List<VersionDistribution> rows = counts.rows();
    assertThat(rows).hasSize(VersionQueries.MAX_ROWS);
    assertThat(rows.getFirst().driverVersion()).isEqualTo("d-" + VersionQueries.MAX_ROWS);
    assertThat(rows.getLast().driverVersion()).isEqualTo("d-998");
  }

  /**
   * The tally's distribution: each node by its facts and GPUs as they change, filtered by zone and
   * pool ('(none)' for those without), drift from what the desired specs ask; none while a node has
   * a record PostgreSQL refused.
   */
  @Test
  void theTallyCountsItsNodesAsTheyChange() {
    FleetTally tally = new FleetTally();
    var gke =
        NodeRegisteredBuilder.from(
                Events.registered(
                    "a",
                    HostKind.UBUNTU,
                    "580.95.05",
                    Map.of("cloud.google.com/gke-nodepool", "g")))
            .zone(null)
            .build();
    tally.apply(
        List.of(
            Events.envelope("a", 1, 0, gke),
            Events.envelope("a", 1, 1, Events.inventory(Events.H100, 2, MigMode.ENABLED)),
            Events.envelope(
                "b", 1, 0, Events.registered("b", HostKind.TALOS, null, Map.of("pool", "t"))),
            Events.envelope("b", 1, 1, Events.inventory(Events.L4, 1, MigMode.DISABLED)),
            Events.envelope("c", 1, 0, Events.heartbeat(1))));
    Map<String, Desired> desired = Map.of("a", new Desired(1L, null), "b", NONE);

    assertThat(tally.versions(n -> desired.getOrDefault(n, NONE), null, null))
        .contains(
            List.of(
                new VersionDistribution("(none)", "(none)", "(none)", "", "(no GPUs)", 1, 0),
                new VersionDistribution(
                    "(none)", "g", "580.95.05", "ubuntu 24.04", "3g.40gb+3g.40gb", 1, 1),
                new VersionDistribution("zone-b", "t", "(none)", "talos 1.11.2", "no MIG", 1, 0)));
    assertThat(tally.versions(n -> NONE, "(none)", "g").orElseThrow())
        .extracting(VersionDistribution::migLayout)
        .containsExactly("3g.40gb+3g.40gb");

    // a applies its spec and turns MIG off: one row moves, the other groups stay.
    tally.apply(
        List.of(
            Events.envelope("a", 1, 2, new SpecApplied(1)),
            Events.envelope("a", 1, 3, Events.inventory(Events.H100, 1, MigMode.DISABLED))));
    assertThat(tally.versions(n -> desired.getOrDefault(n, NONE), null, "g"))
        .contains(
            List.of(
                new VersionDistribution(
                    "(none)", "g", "580.95.05", "ubuntu 24.04", "MIG off", 1, 0)));

    tally.refusedByTables("b");
    assertThat(tally.versions(n -> NONE, "(none)", null)).isEmpty();
  }

  private static VersionDistribution row(Versions of, long nodes, long drifted) {
    return new VersionDistribution(
        of.zone(), of.pool(), of.driverVersion(), of.os(), of.migLayout(), nodes, drifted);
  }

  private static ReconcileState reconcile(long applied, Long failedAt, boolean bootPending) {
    return new ReconcileState(
        applied,
        applied,
        null,
        null,
        null,
        "boot-1",
        bootPending,
        failedAt == null
            ? null
            : new ReconcileState.Failure(failedAt, StepKind.SET_MIG_MODE, 0, "failed", null),
        null,
        List.of());
  }

  private static NodeView node(String driverVersion) {
    return NodeView.observed(
        "n",
        new NodeFacts(
            "ubuntu",
            "ubuntu",
            "24.04",
            null,
            null,
            null,
            null,
            null,
            null,
            driverVersion,
            null,
            Map.of(),
            Map.of()),
        null,
        new ArrayList<>());
  }
}
