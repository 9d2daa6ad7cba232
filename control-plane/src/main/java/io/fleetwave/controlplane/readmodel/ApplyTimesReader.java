package io.fleetwave.controlplane.readmodel;

import io.fleetwave.core.rollout.plan.ApplyTimes;
import io.fleetwave.core.rollout.plan.RolloutPlanner;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.json.WireNamed;
import io.fleetwave.events.node.HostKind;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The apply times measured in past rollouts, per kind of node (host kind and GPU models): the
 * median time from a node's start to its success going forward, over the last {@link #WINDOW_DAYS}
 * days. A node counts as the GPUs it has now.
 */
@ApplicationScoped
public class ApplyTimesReader {
  /** Older rollouts ran older drivers and agents: their times say less about the next one. */
  static final int WINDOW_DAYS = 90;

  static final String SQL =
      """
      WITH applied AS (
        SELECT n.host_kind,
               (SELECT string_agg(DISTINCT g.pci_device_id, ',')
                  FROM gpus g WHERE g.node = s.node) AS devices,
               extract(epoch FROM s.finished_at - s.started_at) AS seconds
          FROM rollout_node_states s
          JOIN nodes n ON n.name = s.node
         WHERE s.phase = 'forward' AND s.state = 'succeeded'
           AND s.started_at IS NOT NULL AND s.finished_at IS NOT NULL
           AND s.finished_at > now() - make_interval(days => %d))
      SELECT host_kind, devices,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS seconds
        FROM applied
       WHERE host_kind IS NOT NULL AND devices IS NOT NULL
       GROUP BY host_kind, devices
      """
          .formatted(WINDOW_DAYS);

  private final Pool pool;
  private final GpuCatalog catalog;

  public ApplyTimesReader(Pool pool, GpuCatalog catalog) {
    this.pool = pool;
    this.catalog = catalog;
  }

  public Uni<ApplyTimes> measured() {
    return pool.query(SQL)
        .execute()
        .map(
            rows -> {
              Map<String, Duration> byKind = new HashMap<>();
              for (Row row : rows) {
                String kind =
                    RolloutPlanner.kind(
                        WireNamed.parse(HostKind.class, row.getString("host_kind")),
                        List.of(row.getString("devices").split(",")),
                        catalog);
                Duration median = Duration.ofMillis(Math.round(row.getDouble("seconds") * 1000));
                // Two PCI ids of one model (board variants): the slower one, to promise no less.
                byKind.merge(kind, median, (a, b) -> a.compareTo(b) >= 0 ? a : b);
              }
              return new ApplyTimes(byKind);
            });
  }
}
