package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.database.ColumnArrays;
import io.fleetwave.core.projection.ReconcileState;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The version distribution as it stood at a past moment: {@code reports.version_distribution}'s
 * question asked of the tables {@link AsOfTables} rebuilds from the history. A view is bound to the
 * tables it was created over, so its SQL (V17: reports.gpu_layouts, node_inventory and
 * version_distribution) is restated here over the WITH clause's tables; each node's reconcile state
 * is folded from its progress events and given as arrays. AsOfReadsIT compares its answers with
 * what the view answered at those moments.
 */
@ApplicationScoped
public class AsOfVersions {
  private static final String SQL =
      ", node_reconcile AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[],"
          + " $4::boolean[]) AS r (node, applied_generation, failure_generation, boot_pending)),"
          + " gpu_layouts AS (SELECT g.node, CASE g.mig_mode WHEN 'enabled' THEN coalesce("
          + "(SELECT string_agg(i.profile, '+' ORDER BY i.placement_start) FROM gpu_instances i"
          + " WHERE i.node = g.node AND i.gpu_index = g.gpu_index), 'MIG on, no instances')"
          + " WHEN 'disabled' THEN 'MIG off' ELSE 'no MIG' END AS layout FROM gpus g),"
          + " node_inventory AS (SELECT coalesce(n.zone, '(none)') AS zone,"
          + " coalesce(n.labels ->> 'pool', n.labels ->> 'cloud.google.com/gke-nodepool',"
          + " n.labels ->> 'eks.amazonaws.com/nodegroup', n.labels ->> 'karpenter.sh/nodepool',"
          + " n.labels ->> 'kubernetes.azure.com/agentpool', '(none)') AS pool,"
          + " trim(coalesce(n.os_id, '') || ' ' || coalesce(n.os_version, '')) AS os,"
          + " coalesce(n.driver_version, '(none)') AS driver_version,"
          + " coalesce((SELECT string_agg(DISTINCT l.layout, ' | ') FROM gpu_layouts l"
          + " WHERE l.node = n.name), '(no GPUs)') AS mig_layout,"
          + " coalesce(r.failure_generation < greatest(coalesce(d.generation, 0),"
          + " coalesce(r.applied_generation, 0)), true) AND NOT coalesce(r.boot_pending, false)"
          + " AND coalesce(d.generation, 0) <= coalesce(r.applied_generation, 0) AS converged,"
          + " d.spec ->> 'driverVersion' IS NOT NULL"
          + " AND d.spec ->> 'driverVersion' IS DISTINCT FROM n.driver_version AS driver_drift"
          + " FROM nodes n LEFT JOIN desired_specs d ON d.node = n.name"
          + " LEFT JOIN node_reconcile r ON r.node = n.name)"
          + " SELECT zone, pool, driver_version, os, mig_layout, count(*) AS nodes,"
          + " count(*) FILTER (WHERE NOT converged OR driver_drift) AS drifted"
          + " FROM node_inventory WHERE ($5::text IS NULL OR zone = $5)"
          + " AND ($6::text IS NULL OR pool = $6)"
          + " GROUP BY zone, pool, driver_version, os, mig_layout"
          + " ORDER BY zone, pool, drifted DESC, nodes DESC, driver_version, os, mig_layout"
          + " LIMIT "
          + VersionQueries.MAX_ROWS;

  private final Pool pool;

  public AsOfVersions(Pool pool) {
    this.pool = pool;
  }

  /** The rows of {@code zone} and {@code pool} (null: every one) at {@code moment}. */
  public Uni<List<VersionDistribution>> distribution(Instant moment, String zone, String pool) {
    AsOfTables past = new AsOfTables(moment);
    return past.reconciles(this.pool)
        .chain(
            reconciles ->
                this.pool
                    .preparedQuery(past.with().stripTrailing() + SQL)
                    .execute(parameters(reconciles).addString(zone).addString(pool)))
        .map(VersionQueries::distribution);
  }

  /** The reconcile columns the view reads, as one array each ($1 to $4). */
  private static Tuple parameters(Map<String, ReconcileState> reconciles) {
    List<String> nodes = new ArrayList<>(reconciles.keySet());
    return ColumnArrays.of(nodes)
        .strings(node -> node)
        .longs(node -> reconciles.get(node).appliedGeneration())
        .longs(
            node -> {
              ReconcileState.Failure failure = reconciles.get(node).failure();
              return failure == null ? null : failure.generation();
            })
        .booleans(node -> reconciles.get(node).bootPending())
        .tuple();
  }
}
