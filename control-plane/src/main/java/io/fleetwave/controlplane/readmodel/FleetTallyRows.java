package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.database.PipelinedTransaction;
import io.fleetwave.controlplane.readmodel.FleetTally.CountedGpu;
import io.fleetwave.controlplane.readmodel.FleetTally.CountedNode;
import io.fleetwave.core.projection.NodePosition;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The live tables as a {@link FleetTally} counts them: every node row with its position and host
 * kind, and its GPU rows, read in one snapshot a page of nodes at a time (at 100,000 nodes one
 * result of 800,000 GPU rows would be held and mapped at once, on an event loop).
 */
@ApplicationScoped
public class FleetTallyRows {
  /** Nodes a page: their GPU rows are about eight times as many. */
  private static final int PAGE = 2_000;

  private static final String NODES =
      "SELECT name, last_epoch, last_seq, host_kind FROM nodes WHERE name > $1 ORDER BY name"
          + " LIMIT $2";
  private static final String GPUS =
      "SELECT node, pci_device_id, product, mig_mode, health FROM gpus WHERE node = ANY($1)"
          + " ORDER BY node, gpu_index";

  private final Pool pool;
  private final int page;

  @Inject
  public FleetTallyRows(Pool pool) {
    this(pool, PAGE);
  }

  /** With pages of {@code page} nodes (a test's few nodes over several pages). */
  FleetTallyRows(Pool pool, int page) {
    this.pool = pool;
    this.page = page;
  }

  /** Every node of the tables as counted, by name. */
  public Uni<Map<String, CountedNode>> read() {
    return PipelinedTransaction.readSnapshot(
        pool,
        transaction -> {
          Map<String, CountedNode> nodes = new HashMap<>();
          return pagesAfter(transaction.connection(), "", page, nodes)
              .chain(transaction::commit)
              .replaceWith(nodes);
        });
  }

  /** The pages of nodes named after {@code after}, in name order, into {@code nodes}. */
  private static Uni<Void> pagesAfter(
      SqlConnection conn, String after, int size, Map<String, CountedNode> nodes) {
    return conn.preparedQuery(NODES)
        .execute(Tuple.of(after, size))
        .chain(
            nodeRows -> {
              List<Row> page = new ArrayList<>();
              nodeRows.forEach(page::add);
              if (page.isEmpty()) {
                return Uni.createFrom().voidItem();
              }
              String[] names =
                  page.stream().map(row -> row.getString("name")).toArray(String[]::new);
              return conn.preparedQuery(GPUS)
                  .execute(Tuple.tuple().addArrayOfString(names))
                  .chain(
                      gpuRows -> {
                        add(page, gpuRows, nodes);
                        return page.size() < size
                            ? Uni.createFrom().voidItem()
                            : pagesAfter(conn, names[names.length - 1], size, nodes);
                      });
            });
  }

  private static void add(List<Row> page, Iterable<Row> gpuRows, Map<String, CountedNode> nodes) {
    Map<String, List<CountedGpu>> gpus = new HashMap<>();
    for (Row row : gpuRows) {
      gpus.computeIfAbsent(row.getString("node"), node -> new ArrayList<>())
          .add(
              new CountedGpu(
                  row.getString("pci_device_id"),
                  row.getString("product"),
                  row.getString("mig_mode"),
                  row.getString("health")));
    }
    for (Row row : page) {
      String name = row.getString("name");
      nodes.put(
          name,
          new CountedNode(
              new NodePosition(row.getLong("last_epoch"), row.getLong("last_seq")),
              row.getString("host_kind"),
              gpus.getOrDefault(name, List.of())));
    }
  }
}
