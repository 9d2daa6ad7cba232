package io.fleetwave.controlplane.readmodel;

import io.fleetwave.core.projection.ReconcileState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The version distribution of the nodes {@link FleetTally} holds, as {@code
 * reports.version_distribution} (migration V17) counts the tables and {@link VersionQueries} reads
 * it: nodes grouped by zone, pool, driver version, OS and MIG layout, with how many of each group
 * drift from their desired state, in the query's order, at most {@link VersionQueries#MAX_ROWS}
 * rows. The views stay in SQL for Grafana; FleetViewIT keeps the two equal.
 */
public final class FleetVersions {
  /** A node's zone or driver version where it has none, as the view's {@code coalesce}s say. */
  static final String NONE = "(none)";

  /** {@code ORDER BY zone, pool, drifted DESC, nodes DESC, driver_version, os, mig_layout}. */
  static final Comparator<VersionDistribution> ORDER =
      Comparator.comparing(VersionDistribution::zone, CCollation.ORDER)
          .thenComparing(VersionDistribution::pool, CCollation.ORDER)
          .thenComparing(Comparator.comparingLong(VersionDistribution::drifted).reversed())
          .thenComparing(Comparator.comparingLong(VersionDistribution::nodes).reversed())
          .thenComparing(VersionDistribution::driverVersion, CCollation.ORDER)
          .thenComparing(VersionDistribution::os, CCollation.ORDER)
          .thenComparing(VersionDistribution::migLayout, CCollation.ORDER);

  private FleetVersions() {}

  /**
   * What a node is grouped by: its row of {@code reports.node_inventory}, reduced to the columns
   * the distribution groups by.
   */
  record Versions(String zone, String pool, String driverVersion, String os, String migLayout) {
    static Versions of(NodeView node) {
      return new Versions(
          node.facts().zone() == null ? NONE : node.facts().zone(),
          NodePool.of(node.facts().labels()),
          node.facts().driverVersion() == null ? NONE : node.facts().driverVersion(),
          FleetVersions.os(node.facts().osId(), node.facts().osVersion()),
          MigLayout.ofNode(node.gpus()));
    }

    /** Whether the node is in {@code zone} and {@code pool} (null: any). */
    boolean in(String zone, String pool) {
      return (zone == null || zone.equals(this.zone)) && (pool == null || pool.equals(this.pool));
    }
  }

  /**
   * What a node's desired spec asks, as desired_specs holds it.
   *
   * @param generation its generation, null without a spec
   * @param driverVersion the driver version it asks for, null when it asks for none (or no spec)
   */
  public record Desired(Long generation, String driverVersion) {}

  /** {@code trim(coalesce(os_id, '') || ' ' || coalesce(os_version, ''))}. */
  static String os(String osId, String osVersion) {
    String os = (osId == null ? "" : osId) + " " + (osVersion == null ? "" : osVersion);
    // PostgreSQL's trim takes spaces off both ends, and nothing else.
    int start = 0;
    int end = os.length();
    while (start < end && os.charAt(start) == ' ') {
      start++;
    }
    while (end > start && os.charAt(end - 1) == ' ') {
      end--;
    }
    return os.substring(start, end);
  }

  /**
   * Whether a node drifts from its desired state ({@code NOT converged OR driver_drift}): it has
   * not converged to its desired spec ({@link Convergence}, the view's {@code converged}), or that
   * spec asks for a driver version the node does not run (none running included).
   */
  static boolean drifted(NodeView node, ReconcileState reconcile, Desired desired) {
    return !Convergence.of(desired.generation(), reconcile).converged()
        || (desired.driverVersion() != null
            && !desired.driverVersion().equals(node.facts().driverVersion()));
  }

  /** The nodes counted by what they are grouped by: {@code GROUP BY} and {@code count(*)}. */
  static final class Counts {
    private final Map<Versions, long[]> groups = new HashMap<>();

    /** Counts a node of {@code versions}, drifted or not. */
    void add(Versions versions, boolean drifted) {
      long[] counts = groups.computeIfAbsent(versions, v -> new long[2]);
      counts[0]++;
      if (drifted) {
        counts[1]++;
      }
    }

    /** The rows of the distribution, in the query's order, at most its limit. */
    List<VersionDistribution> rows() {
      List<VersionDistribution> rows = new ArrayList<>(groups.size());
      groups.forEach(
          (group, counts) ->
              rows.add(
                  new VersionDistribution(
                      group.zone(),
                      group.pool(),
                      group.driverVersion(),
                      group.os(),
                      group.migLayout(),
                      counts[0],
                      counts[1])));
      rows.sort(ORDER);
      return List.copyOf(rows.subList(0, Math.min(rows.size(), VersionQueries.MAX_ROWS)));
    }
  }
}
