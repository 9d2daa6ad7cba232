package io.fleetwave.controlplane.projection;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Applies a batch of node events to PostgreSQL in one transaction: lock the nodes' rows, fold the
 * batch against their stored positions ({@link ProjectionFold}), write the result. Because the
 * position check and the writes share the transaction and the row locks, an event is applied at
 * most once whatever the consumer redelivers.
 */
@ApplicationScoped
public class ProjectionWriter {
  private static final BatchChanges NOTHING = new BatchChanges(List.of(), 0, List.of());

  private final Pool pool;

  public ProjectionWriter(Pool pool) {
    this.pool = pool;
  }

  public Uni<BatchChanges> apply(ProjectionTables tables, List<Envelope<NodeEvent>> events) {
    if (events.isEmpty()) {
      return Uni.createFrom().item(NOTHING);
    }
    String[] names =
        events.stream().map(Envelope::subject).distinct().sorted().toArray(String[]::new);
    Tuple nameTuple = Tuple.tuple().addArrayOfString(names);
    return pool.withTransaction(
        conn ->
            conn.preparedQuery(tables.ensureNodes)
                .execute(nameTuple)
                .chain(() -> conn.preparedQuery(tables.lockNodes).execute(nameTuple))
                .map(ProjectionWriter::positions)
                .chain(
                    stored ->
                        reconciles(conn, tables, nameTuple, events)
                            .map(reconciles -> ProjectionFold.fold(stored, reconciles, events)))
                .call(changes -> write(conn, tables, changes)));
  }

  /** The stored reconcile states, read only when the batch carries progress events. */
  private static Uni<Map<String, ReconcileState>> reconciles(
      SqlConnection conn,
      ProjectionTables tables,
      Tuple nameTuple,
      List<Envelope<NodeEvent>> events) {
    if (events.stream().noneMatch(e -> ReconcileState.concerns(e.data()))) {
      return Uni.createFrom().item(Map.of());
    }
    return conn.preparedQuery(tables.selectReconciles)
        .execute(nameTuple)
        .chain(
            reconcileRows ->
                conn.preparedQuery(tables.selectSteps)
                    .execute(nameTuple)
                    .map(stepRows -> ReconcileRows.read(reconcileRows, stepRows)));
  }

  private static Map<String, NodePosition> positions(RowSet<Row> rows) {
    Map<String, NodePosition> stored = new HashMap<>();
    for (Row row : rows) {
      stored.put(
          row.getString("name"),
          new NodePosition(row.getLong("last_epoch"), row.getLong("last_seq")));
    }
    return stored;
  }

  private Uni<Void> write(SqlConnection conn, ProjectionTables tables, BatchChanges changes) {
    List<Tuple> facts = new ArrayList<>();
    List<Tuple> positions = new ArrayList<>();
    List<String> inventoried = new ArrayList<>();
    List<Tuple> gpus = new ArrayList<>();
    List<Tuple> instances = new ArrayList<>();
    List<String> reconciled = new ArrayList<>();
    List<Tuple> reconciles = new ArrayList<>();
    List<Tuple> steps = new ArrayList<>();
    for (NodeChange change : changes.nodes()) {
      change
          .reconcile()
          .ifPresent(
              state -> {
                reconciled.add(change.node());
                reconciles.add(ReconcileRows.reconcileTuple(change.node(), state));
                steps.addAll(ReconcileRows.stepTuples(change.node(), state));
              });
      positions.add(
          Tuple.of(
              change.node(),
              change.position().epoch(),
              change.position().seq(),
              utc(change.lastSeen())));
      change.facts().ifPresent(registered -> facts.add(factsTuple(change.node(), registered)));
      change
          .inventory()
          .ifPresent(
              inventory -> {
                inventoried.add(change.node());
                for (Gpu gpu : inventory.gpus()) {
                  gpus.add(gpuTuple(change.node(), gpu));
                  for (GpuInstance instance : gpu.instances()) {
                    instances.add(
                        Tuple.of(
                            change.node(),
                            gpu.index(),
                            instance.profile(),
                            instance.placementStart(),
                            instance.placementSize()));
                  }
                }
              });
    }
    List<Tuple> history = changes.applied().stream().map(ProjectionWriter::historyTuple).toList();
    Tuple inventoriedNames = Tuple.tuple().addArrayOfString(inventoried.toArray(String[]::new));
    return batch(conn, tables.updateFacts, facts)
        .chain(() -> batch(conn, tables.updatePosition, positions))
        .chain(
            () ->
                inventoried.isEmpty()
                    ? Uni.createFrom().voidItem()
                    : conn.preparedQuery(tables.deleteInstances)
                        .execute(inventoriedNames)
                        .chain(
                            () -> conn.preparedQuery(tables.deleteGpus).execute(inventoriedNames))
                        .replaceWithVoid())
        .chain(() -> batch(conn, tables.insertGpu, gpus))
        .chain(() -> batch(conn, tables.insertInstance, instances))
        .chain(() -> batch(conn, tables.insertHistory, history))
        .chain(() -> batch(conn, tables.upsertReconcile, reconciles))
        .chain(
            () ->
                reconciled.isEmpty()
                    ? Uni.createFrom().voidItem()
                    : conn.preparedQuery(tables.deleteSteps)
                        .execute(Tuple.tuple().addArrayOfString(reconciled.toArray(String[]::new)))
                        .replaceWithVoid())
        .chain(() -> batch(conn, tables.insertStep, steps));
  }

  private static Uni<Void> batch(SqlConnection conn, String sql, List<Tuple> tuples) {
    if (tuples.isEmpty()) {
      return Uni.createFrom().voidItem();
    }
    return conn.preparedQuery(sql).executeBatch(tuples).replaceWithVoid();
  }

  private static Tuple factsTuple(String node, NodeRegistered facts) {
    return Tuple.from(
        Arrays.asList(
            node,
            facts.hostKind().wireName(),
            facts.osId(),
            facts.osVersion(),
            facts.kernel(),
            facts.readOnlyRoot(),
            facts.systemd(),
            facts.driverRoot(),
            facts.deviceRoot(),
            facts.driverProvider().wireName(),
            facts.driverVersion(),
            facts.zone(),
            json(facts.labels()),
            json(facts.reasons())));
  }

  private static Tuple gpuTuple(String node, Gpu gpu) {
    return Tuple.from(
        Arrays.asList(
            node,
            gpu.index(),
            gpu.uuid(),
            gpu.pciBusId(),
            gpu.pciDeviceId(),
            gpu.product(),
            gpu.memoryMiB(),
            gpu.migCapable(),
            gpu.migMode().wireName(),
            gpu.migModePending().wireName(),
            gpu.vfsTotal(),
            gpu.vfsEnabled(),
            gpu.health().wireName()));
  }

  private static Tuple historyTuple(Envelope<NodeEvent> event) {
    return Tuple.from(
        Arrays.asList(
            event.subject(),
            event.epoch(),
            event.seq(),
            event.id(),
            event.type(),
            utc(event.time()),
            json(event.data())));
  }

  private static OffsetDateTime utc(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }

  /** A JsonObject, not a String: the PG client would store a String as a jsonb string scalar. */
  private static JsonObject json(Object value) {
    try {
      return new JsonObject(EventCodec.mapper().writeValueAsString(value));
    } catch (JsonProcessingException e) {
      // Every value here came out of the same mapper's decoder a moment ago.
      throw new IllegalStateException("cannot serialise " + value.getClass().getSimpleName(), e);
    }
  }
}
