package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.database.ColumnArrays;
import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.core.provenance.AspectKey;
import io.fleetwave.core.provenance.ChangeFold;
import io.fleetwave.core.provenance.NodeProvenance;
import io.fleetwave.core.provenance.Observation;
import io.fleetwave.core.provenance.ObservedChange;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.NodeEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The change fold ({@link ChangeFold}) inside the projection's transaction: reads the batch's
 * nodes' {@link NodeProvenance} with the other reads, and writes the moved ones and the changes
 * seen with the other writes, so a change is recorded exactly when the event that reveals it is
 * applied.
 */
final class ProvenanceRows {
  private final String select;
  private final String upsert;
  private final String insertChanges;
  private final String bootChanges;

  ProvenanceRows(ProjectionTables tables) {
    String provenance = tables.table("node_provenance");
    select = "SELECT * FROM " + provenance + " WHERE node = ANY($1::text[])";
    upsert =
        "INSERT INTO "
            + provenance
            + " (node, observation, driver_seen, gpus_seen, accepted_generation, touched,"
            + " unexplained) VALUES ($1, $2::jsonb, $3, $4, $5, $6::jsonb, $7::jsonb)"
            + " ON CONFLICT (node) DO UPDATE SET observation = EXCLUDED.observation,"
            + " driver_seen = EXCLUDED.driver_seen, gpus_seen = EXCLUDED.gpus_seen,"
            + " accepted_generation = EXCLUDED.accepted_generation, touched = EXCLUDED.touched,"
            + " unexplained = EXCLUDED.unexplained";
    insertChanges =
        "INSERT INTO "
            + tables.table("node_changes")
            + " (node, epoch, seq, aspect, gpu, event_time, before, after, step_generation,"
            + " accepted_generation, boot_id) SELECT * FROM unnest($1::text[], $2::bigint[],"
            + " $3::bigint[], $4::text[], $5::integer[], $6::timestamptz[], $7::text[],"
            + " $8::text[], $9::bigint[], $10::bigint[], $11::text[])"
            + " ON CONFLICT (node, epoch, seq, aspect) DO NOTHING";
    // After insertChanges: the batch's own changes already carry their boot (ChangeFold).
    bootChanges =
        "UPDATE "
            + tables.table("node_changes")
            + " AS c SET boot_id = b.boot FROM unnest($1::text[], $2::bigint[], $3::bigint[],"
            + " $4::text[]) AS b(node, epoch, seq, boot) WHERE c.node = b.node"
            + " AND c.epoch = b.epoch AND c.seq < b.seq AND c.boot_id IS NULL"
            + " AND c.step_generation IS NULL";
  }

  /**
   * The stored provenance of the nodes whose events of the batch can move it: a heartbeat, most of
   * a batch, never does (the fold reads no other node's).
   */
  Uni<Map<String, NodeProvenance>> read(SqlConnection conn, List<Envelope<NodeEvent>> events) {
    Tuple names = ProjectionWriter.subjects(events, e -> ChangeFold.concerns(e.data()));
    if (names == null) {
      return Uni.createFrom().item(Map.of());
    }
    return conn.preparedQuery(select)
        .execute(names)
        .map(rows -> Rows.byKey(rows, row -> row.getString("node"), ProvenanceRows::provenance));
  }

  /** The statements that write what the fold of the applied events found, in order. */
  List<Uni<Void>> write(SqlConnection conn, ChangeFold.Result result) {
    List<Uni<Void>> statements = new ArrayList<>();
    if (!result.nodes().isEmpty()) {
      List<Tuple> tuples = new ArrayList<>();
      result.nodes().forEach((node, p) -> tuples.add(tuple(node, p)));
      statements.add(conn.preparedQuery(upsert).executeBatch(tuples).replaceWithVoid());
    }
    if (!result.changes().isEmpty()) {
      statements.add(
          conn.preparedQuery(insertChanges)
              .execute(changeArrays(result.changes()))
              .replaceWithVoid());
    }
    if (!result.boots().isEmpty()) {
      List<ChangeFold.BootSeen> boots = result.boots();
      statements.add(
          conn.preparedQuery(bootChanges)
              .execute(
                  Tuple.tuple()
                      .addArrayOfString(
                          boots.stream().map(ChangeFold.BootSeen::node).toArray(String[]::new))
                      .addArrayOfLong(
                          boots.stream().map(ChangeFold.BootSeen::epoch).toArray(Long[]::new))
                      .addArrayOfLong(
                          boots.stream().map(ChangeFold.BootSeen::seq).toArray(Long[]::new))
                      .addArrayOfString(
                          boots.stream().map(ChangeFold.BootSeen::bootId).toArray(String[]::new)))
              .replaceWithVoid());
    }
    return statements;
  }

  private static NodeProvenance provenance(Row row) {
    Map<String, String> observation = new LinkedHashMap<>();
    row.getJsonObject("observation")
        .forEach(e -> observation.put(e.getKey(), (String) e.getValue()));
    Map<AspectKey, NodeProvenance.Touch> touched = new HashMap<>();
    row.getJsonObject("touched")
        .forEach(
            e -> {
              JsonObject touch = (JsonObject) e.getValue();
              touched.put(
                  AspectKey.parse(e.getKey()),
                  new NodeProvenance.Touch(
                      touch.getLong("generation"), touch.getBoolean("running")));
            });
    return new NodeProvenance(
        Observation.fromText(observation),
        row.getBoolean("driver_seen"),
        row.getBoolean("gpus_seen"),
        row.getLong("accepted_generation"),
        touched,
        UnexplainedRuns.read(row.getJsonObject("unexplained")));
  }

  private static Tuple tuple(String node, NodeProvenance p) {
    JsonObject touched = new JsonObject();
    p.touched()
        .forEach(
            (key, touch) ->
                touched.put(
                    key.text(),
                    new JsonObject()
                        .put("generation", touch.generation())
                        .put("running", touch.running())));
    return Tuple.from(
        Arrays.asList(
            node,
            new JsonObject(new LinkedHashMap<>(p.observation().asText())),
            p.driverSeen(),
            p.gpusSeen(),
            p.acceptedGeneration(),
            touched,
            UnexplainedRuns.json(p.unexplained())));
  }

  private static Tuple changeArrays(List<ObservedChange> changes) {
    return ColumnArrays.of(changes)
        .strings(ObservedChange::node)
        .longs(ObservedChange::epoch)
        .longs(ObservedChange::seq)
        .strings(c -> c.key().text())
        .integers(c -> c.key().gpu())
        .times(ObservedChange::time)
        .strings(ObservedChange::before)
        .strings(ObservedChange::after)
        .longs(ObservedChange::stepGeneration)
        .longs(ObservedChange::acceptedGeneration)
        .strings(ObservedChange::bootId)
        .tuple();
  }
}
