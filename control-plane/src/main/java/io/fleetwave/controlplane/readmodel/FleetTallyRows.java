package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.database.PipelinedTransaction;
import io.fleetwave.controlplane.database.PipelinedTransaction.Read;
import io.fleetwave.controlplane.readmodel.FleetTally.CountedGpu;
import io.fleetwave.controlplane.readmodel.FleetTally.CountedNode;
import io.fleetwave.core.projection.NodePosition;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The live tables as a {@link FleetTally} counts them: every node row with its position and host
 * kind, and its GPU rows, read in one snapshot.
 */
@ApplicationScoped
public class FleetTallyRows {
  private static final String NODES = "SELECT name, last_epoch, last_seq, host_kind FROM nodes";
  private static final String GPUS =
      "SELECT node, pci_device_id, product, mig_mode, health FROM gpus ORDER BY node, gpu_index";

  private final Pool pool;

  public FleetTallyRows(Pool pool) {
    this.pool = pool;
  }

  /** Every node of the tables as counted, by name. */
  public Uni<Map<String, CountedNode>> read() {
    return PipelinedTransaction.readTogether(
            pool, new Read(NODES, Tuple.tuple()), new Read(GPUS, Tuple.tuple()))
        .map(
            rows -> {
              Map<String, List<CountedGpu>> gpus = new HashMap<>();
              for (Row row : rows.get(1)) {
                gpus.computeIfAbsent(row.getString("node"), node -> new ArrayList<>())
                    .add(
                        new CountedGpu(
                            row.getString("pci_device_id"),
                            row.getString("product"),
                            row.getString("mig_mode"),
                            row.getString("health")));
              }
              Map<String, CountedNode> nodes = new HashMap<>();
              for (Row row : rows.get(0)) {
                String name = row.getString("name");
                nodes.put(
                    name,
                    new CountedNode(
                        new NodePosition(row.getLong("last_epoch"), row.getLong("last_seq")),
                        row.getString("host_kind"),
                        gpus.getOrDefault(name, List.of())));
              }
              return nodes;
            });
  }
}
