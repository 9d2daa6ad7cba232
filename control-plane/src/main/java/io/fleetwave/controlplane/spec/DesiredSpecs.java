package io.fleetwave.controlplane.spec;

import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.controlplane.projection.ObservedGpu;
import io.fleetwave.controlplane.readmodel.FleetReadModel;
import io.fleetwave.controlplane.spec.store.SpecFacts;
import io.fleetwave.events.spec.NodeSpec;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * SQL of the desired_specs and command_generations tables, as the spec service reads them and takes
 * its locks (what the facts write: {@link SpecFacts}); a node's observed GPUs come from the
 * projection's read model.
 */
final class DesiredSpecs {
  private DesiredSpecs() {}

  /** Serialises spec changes of one node for the rest of the transaction, even its first. */
  static Uni<Void> lockNode(SqlClient conn, String node) {
    return conn.preparedQuery("SELECT pg_advisory_xact_lock(hashtextextended($1, 4))")
        .execute(Tuple.of("desired-spec:" + node))
        .replaceWithVoid();
  }

  static Uni<Optional<NodeSpec>> current(SqlClient conn, String node) {
    return conn.preparedQuery("SELECT spec FROM desired_specs WHERE node = $1")
        .execute(Tuple.of(node))
        .map(rows -> Rows.first(rows).map(row -> SpecFacts.decode(row.getJsonObject("spec"))));
  }

  /** Every node that has a desired spec, by name. */
  static Uni<List<String>> nodes(SqlClient conn) {
    return conn.query("SELECT node FROM desired_specs ORDER BY node")
        .execute()
        .map(
            rows ->
                java.util.stream.StreamSupport.stream(rows.spliterator(), false)
                    .map(row -> row.getString("node"))
                    .toList());
  }

  static Uni<Map<String, NodeSpec>> currentAll(SqlClient conn, java.util.Collection<String> nodes) {
    return conn.preparedQuery("SELECT node, spec FROM desired_specs WHERE node = ANY($1)")
        .execute(Tuple.tuple().addArrayOfString(nodes.toArray(String[]::new)))
        .map(
            rows ->
                Rows.byKey(
                    rows,
                    row -> row.getString("node"),
                    row -> SpecFacts.decode(row.getJsonObject("spec"))));
  }

  /** Serialises the one-shot commands of one node, so two never take the same generation. */
  static Uni<Void> lockCommands(SqlClient conn, String node) {
    return conn.preparedQuery("SELECT pg_advisory_xact_lock(hashtextextended($1, 4))")
        .execute(Tuple.of("command:" + node))
        .replaceWithVoid();
  }

  /** The node's last one-shot command generation (0 before its first). */
  static Uni<Long> commandGeneration(SqlClient conn, String node) {
    return conn.preparedQuery("SELECT generation FROM command_generations WHERE node = $1")
        .execute(Tuple.of(node))
        .map(rows -> Rows.first(rows).map(row -> row.getLong("generation")).orElse(0L));
  }

  /** Locks the spec changes of many nodes, in name order so concurrent callers cannot deadlock. */
  static Uni<Void> lockNodes(SqlClient conn, java.util.Collection<String> nodes) {
    return conn.preparedQuery(
            "SELECT count(pg_advisory_xact_lock(hashtextextended('desired-spec:' || n, 4))) FROM"
                + " (SELECT n FROM unnest($1::text[]) AS n ORDER BY n) AS sorted")
        .execute(Tuple.tuple().addArrayOfString(nodes.toArray(String[]::new)))
        .replaceWithVoid();
  }

  /** The observed GPUs of many nodes, by node: what their specs are validated against. */
  static Uni<Map<String, List<ObservedGpu>>> observedGpusAll(
      SqlClient conn, java.util.Collection<String> nodes) {
    return FleetReadModel.gpus(conn, nodes);
  }

  static Uni<List<ObservedGpu>> observedGpus(SqlClient conn, String node) {
    return observedGpusAll(conn, List.of(node)).map(byNode -> byNode.getOrDefault(node, List.of()));
  }
}
