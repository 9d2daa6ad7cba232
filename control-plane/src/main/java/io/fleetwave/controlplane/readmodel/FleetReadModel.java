package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.controlplane.projection.ObservedGpu;
import io.fleetwave.controlplane.projection.ReconcileRows;
import io.fleetwave.core.projection.ReconcileState;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The projection's tables as the desired-spec service reads them while it validates and publishes a
 * spec. Every method runs on the client it is given (a pool, or a transaction's connection).
 */
public final class FleetReadModel {
  private FleetReadModel() {}

  public static Uni<Boolean> nodeExists(SqlClient client, String node) {
    return client
        .preparedQuery("SELECT 1 FROM nodes WHERE name = $1")
        .execute(Tuple.of(node))
        .map(rows -> rows.size() > 0);
  }

  /** Those of {@code nodes} the projection knows. */
  public static Uni<Set<String>> existingNodes(SqlClient client, Collection<String> nodes) {
    return client
        .preparedQuery("SELECT name FROM nodes WHERE name = ANY($1)")
        .execute(names(nodes))
        .map(rows -> new HashSet<>(Rows.each(rows, row -> row.getString("name"))));
  }

  /** The GPUs of each of {@code nodes} in index order, by node; a node without GPUs is absent. */
  public static Uni<Map<String, List<ObservedGpu>>> gpus(
      SqlClient client, Collection<String> nodes) {
    Tuple names = names(nodes);
    Uni<Map<String, Map<Integer, Map<String, Integer>>>> instances =
        client
            .preparedQuery(
                "SELECT node, gpu_index, profile, count(*)::int AS n FROM gpu_instances WHERE node"
                    + " = ANY($1) GROUP BY node, gpu_index, profile")
            .execute(names)
            .map(
                rows -> {
                  Map<String, Map<Integer, Map<String, Integer>>> byNode = new HashMap<>();
                  for (Row row : rows) {
                    byNode
                        .computeIfAbsent(row.getString("node"), k -> new HashMap<>())
                        .computeIfAbsent(row.getInteger("gpu_index"), k -> new TreeMap<>())
                        .put(row.getString("profile"), row.getInteger("n"));
                  }
                  return byNode;
                });
    return instances.chain(
        byNode ->
            client
                .preparedQuery("SELECT * FROM gpus WHERE node = ANY($1) ORDER BY node, gpu_index")
                .execute(names)
                .map(
                    rows -> {
                      Map<String, List<ObservedGpu>> out = new HashMap<>();
                      for (Row row : rows) {
                        String node = row.getString("node");
                        int index = row.getInteger("gpu_index");
                        out.computeIfAbsent(node, k -> new ArrayList<>())
                            .add(
                                new ObservedGpu(
                                    index,
                                    row.getString("pci_device_id"),
                                    row.getString("product"),
                                    "enabled".equals(row.getString("mig_mode")),
                                    byNode
                                        .getOrDefault(node, Map.of())
                                        .getOrDefault(index, Map.of()),
                                    row.getInteger("vfs_total"),
                                    row.getInteger("vfs_enabled")));
                      }
                      return out;
                    }));
  }

  /** Where the node's reconcile stands, with its steps; null before its first progress event. */
  public static Uni<ReconcileState> reconcile(SqlClient client, String node) {
    return client
        .preparedQuery("SELECT * FROM node_reconcile WHERE node = ANY($1)")
        .execute(names(List.of(node)))
        .chain(
            rows ->
                client
                    .preparedQuery("SELECT * FROM reconcile_steps WHERE node = $1 ORDER BY ordinal")
                    .execute(Tuple.of(node))
                    .map(steps -> ReconcileRows.read(rows, steps).get(node)));
  }

  private static Tuple names(Collection<String> nodes) {
    return Tuple.tuple().addArrayOfString(nodes.toArray(String[]::new));
  }
}
