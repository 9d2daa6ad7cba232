package io.fleetwave.controlplane.readmodel;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The fleet summary: counts by host kind, GPU model, MIG mode and health. */
@ApplicationScoped
public class SummaryQueries {
  private final Pool pool;

  public SummaryQueries(Pool pool) {
    this.pool = pool;
  }

  public Uni<FleetSummary> summary() {
    Uni<Map<String, Long>> hostKinds =
        counts(
            "SELECT coalesce(host_kind, 'unregistered') AS k, count(*) AS c FROM nodes GROUP BY 1");
    Uni<Map<String, Long>> migModes =
        counts("SELECT mig_mode AS k, count(*) AS c FROM gpus GROUP BY 1");
    Uni<Map<String, Long>> health =
        counts("SELECT health AS k, count(*) AS c FROM gpus GROUP BY 1");
    Uni<List<FleetSummary.GpuModelCount>> models =
        pool.query(
                "SELECT upper(pci_device_id) AS id, min(product) AS product, count(*) AS gpus,"
                    + " count(DISTINCT node) AS nodes FROM gpus GROUP BY 1 ORDER BY 1")
            .execute()
            .map(SummaryQueries::models);
    return Uni.combine()
        .all()
        .unis(hostKinds, models, migModes, health)
        .with(
            (kinds, gpuModels, modes, healths) ->
                new FleetSummary(
                    kinds.values().stream().mapToLong(Long::longValue).sum(),
                    gpuModels.stream().mapToLong(FleetSummary.GpuModelCount::gpus).sum(),
                    kinds,
                    gpuModels,
                    modes,
                    healths));
  }

  private Uni<Map<String, Long>> counts(String sql) {
    return pool.query(sql)
        .execute()
        .map(
            rows -> {
              Map<String, Long> counts = new TreeMap<>();
              rows.forEach(row -> counts.put(row.getString("k"), row.getLong("c")));
              return counts;
            });
  }

  private static List<FleetSummary.GpuModelCount> models(RowSet<Row> rows) {
    List<FleetSummary.GpuModelCount> models = new ArrayList<>();
    for (Row row : rows) {
      models.add(
          new FleetSummary.GpuModelCount(
              "0x" + row.getString("id").substring(2),
              row.getString("product"),
              row.getLong("gpus"),
              row.getLong("nodes")));
    }
    return models;
  }
}
