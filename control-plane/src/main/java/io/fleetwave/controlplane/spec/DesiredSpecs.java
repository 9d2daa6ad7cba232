package io.fleetwave.controlplane.spec;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fleetwave.controlplane.projection.ObservedGpu;
import io.fleetwave.controlplane.readmodel.FleetReadModel;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.spec.NodeSpec;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * SQL of the desired_specs and command_generations tables; a node's observed GPUs come from the
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
        .map(
            rows ->
                rows.size() == 0
                    ? Optional.empty()
                    : Optional.of(decode(rows.iterator().next().getJsonObject("spec"))));
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
            rows -> {
              Map<String, NodeSpec> out = new HashMap<>();
              for (Row row : rows) {
                out.put(row.getString("node"), decode(row.getJsonObject("spec")));
              }
              return out;
            });
  }

  /** Saves the node's new desired spec with who set it (the token subject). */
  static Uni<Void> save(SqlClient conn, NodeSpec spec, Instant now, String actor) {
    return conn.preparedQuery(
            "INSERT INTO desired_specs (node, generation, spec, updated_at, actor)"
                + " VALUES ($1, $2, $3, $4, $5)"
                + " ON CONFLICT (node) DO UPDATE SET generation = EXCLUDED.generation,"
                + " spec = EXCLUDED.spec, updated_at = EXCLUDED.updated_at,"
                + " actor = EXCLUDED.actor")
        .execute(
            Tuple.of(
                spec.node(), spec.generation(), encode(spec), now.atOffset(ZoneOffset.UTC), actor))
        .replaceWithVoid();
  }

  /** The next one-shot command generation of a node (1 for its first). */
  static Uni<Long> nextCommandGeneration(SqlClient conn, String node, Instant now) {
    return conn.preparedQuery(
            "INSERT INTO command_generations (node, generation, updated_at) VALUES ($1, 1, $2)"
                + " ON CONFLICT (node) DO UPDATE SET generation ="
                + " command_generations.generation + 1, updated_at = EXCLUDED.updated_at"
                + " RETURNING generation")
        .execute(Tuple.of(node, now.atOffset(ZoneOffset.UTC)))
        .map(rows -> rows.iterator().next().getLong("generation"));
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

  static Uni<Void> saveAll(SqlClient conn, List<NodeSpec> specs, Instant now) {
    if (specs.isEmpty()) {
      return Uni.createFrom().voidItem();
    }
    String[] nodes = new String[specs.size()];
    Long[] generations = new Long[specs.size()];
    String[] bodies = new String[specs.size()];
    for (int i = 0; i < specs.size(); i++) {
      nodes[i] = specs.get(i).node();
      generations[i] = specs.get(i).generation();
      bodies[i] = encode(specs.get(i)).encode();
    }
    return conn.preparedQuery(
            "INSERT INTO desired_specs (node, generation, spec, updated_at) SELECT n, g, s::jsonb,"
                + " $4 FROM unnest($1::text[], $2::bigint[], $3::text[]) AS x (n, g, s) ON"
                + " CONFLICT (node) DO UPDATE SET generation = EXCLUDED.generation, spec ="
                + " EXCLUDED.spec, updated_at = EXCLUDED.updated_at")
        .execute(
            Tuple.tuple()
                .addArrayOfString(nodes)
                .addArrayOfLong(generations)
                .addArrayOfString(bodies)
                .addOffsetDateTime(now.atOffset(ZoneOffset.UTC)))
        .replaceWithVoid();
  }

  static Uni<List<ObservedGpu>> observedGpus(SqlClient conn, String node) {
    return observedGpusAll(conn, List.of(node)).map(byNode -> byNode.getOrDefault(node, List.of()));
  }

  static JsonObject encode(NodeSpec spec) {
    try {
      return new JsonObject(EventCodec.mapper().writeValueAsString(spec));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode the spec of " + spec.node(), e);
    }
  }

  static NodeSpec decode(JsonObject json) {
    try {
      return EventCodec.mapper().readValue(json.encode(), NodeSpec.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "a stored desired spec does not decode: " + e.getMessage(), e);
    }
  }
}
