package io.fleetwave.controlplane.projection;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fleetwave.controlplane.database.ColumnArrays;
import io.fleetwave.controlplane.database.PipelinedTransaction;
import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.core.projection.BatchChanges;
import io.fleetwave.core.projection.DecodedRecord;
import io.fleetwave.core.projection.NodeChange;
import io.fleetwave.core.projection.NodePosition;
import io.fleetwave.core.projection.ProjectionFold;
import io.fleetwave.core.projection.ReconcileState;
import io.fleetwave.core.provenance.ChangeFold;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.GpuInventoryReported;
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
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Applies a batch of node events to PostgreSQL in one transaction: lock the nodes' rows, fold the
 * batch against their stored positions ({@link ProjectionFold}), write the result. Because the
 * position check and the writes share the transaction and the row locks, an event is applied at
 * most once whatever the consumer redelivers.
 */
@ApplicationScoped
public class ProjectionWriter {
  private final Pool pool;
  private final KnownGpuRows knownGpus = new KnownGpuRows(KnownGpuRows.NODES);

  public ProjectionWriter(Pool pool) {
    this.pool = pool;
  }

  /** Applies events that have no received payload text (the history writes each one out). */
  public Uni<BatchChanges> apply(ProjectionTables tables, List<Envelope<NodeEvent>> events) {
    return applyDecoded(tables, events.stream().map(DecodedRecord.Accepted::new).toList());
  }

  /** Applies decoded records; the history keeps each payload as received where there is one. */
  public Uni<BatchChanges> applyDecoded(
      ProjectionTables tables, List<DecodedRecord.Accepted> records) {
    List<Envelope<NodeEvent>> events =
        records.stream().map(DecodedRecord.Accepted::envelope).toList();
    if (events.isEmpty()) {
      return Uni.createFrom().item(BatchChanges.NONE);
    }
    String[] names =
        events.stream().map(Envelope::subject).distinct().sorted().toArray(String[]::new);
    Tuple nameTuple = Tuple.tuple().addArrayOfString(names);
    // Each step's statements are sent together, BEGIN with the reads and COMMIT with the writes
    // (PipelinedTransaction): PostgreSQL runs them in the order sent, so the lock sees the rows
    // ensured before it, and the batch costs two round trips instead of one per statement.
    return PipelinedTransaction.run(
        pool,
        transaction -> {
          SqlConnection conn = transaction.connection();
          return Uni.combine()
              .all()
              .unis(
                  conn.preparedQuery(tables.ensureNodes).execute(nameTuple),
                  conn.preparedQuery(tables.lockNodes).execute(nameTuple),
                  reconciles(conn, tables, events),
                  tables.provenance.read(conn, events))
              .asTuple()
              .flatMap(
                  read -> {
                    BatchChanges changes =
                        ProjectionFold.fold(positions(read.getItem2()), read.getItem3(), events);
                    ChangeFold.Result seen = ChangeFold.fold(read.getItem4(), changes.applied());
                    return write(
                            conn,
                            tables,
                            changes,
                            inventoryDigests(read.getItem2()),
                            received(records),
                            tables.provenance.write(conn, seen),
                            transaction.commit())
                        .replaceWith(changes);
                  });
        });
  }

  /**
   * The received payload text of each event that has one, by the envelope itself: the fold hands
   * back the same envelope objects it was given, so this needs no key of its own.
   */
  private static IdentityHashMap<Envelope<NodeEvent>, String> received(
      List<DecodedRecord.Accepted> records) {
    IdentityHashMap<Envelope<NodeEvent>, String> texts = new IdentityHashMap<>();
    for (DecodedRecord.Accepted record : records) {
      record.receivedData().ifPresent(text -> texts.put(record.envelope(), text));
    }
    return texts;
  }

  /**
   * The stored reconcile states of the nodes whose events of the batch carry progress: the others'
   * stay as stored (most of a batch is heartbeats).
   */
  private static Uni<Map<String, ReconcileState>> reconciles(
      SqlConnection conn, ProjectionTables tables, List<Envelope<NodeEvent>> events) {
    Tuple nameTuple = subjects(events, e -> ReconcileState.concerns(e.data()));
    if (nameTuple == null) {
      return Uni.createFrom().item(Map.of());
    }
    return Uni.combine()
        .all()
        .unis(
            conn.preparedQuery(tables.selectReconciles).execute(nameTuple),
            conn.preparedQuery(tables.selectSteps).execute(nameTuple))
        .asTuple()
        .map(rows -> ReconcileRows.read(rows.getItem1(), rows.getItem2()));
  }

  /**
   * The distinct nodes of the events {@code which} picks, as one text array; null when it picks
   * none.
   */
  static Tuple subjects(List<Envelope<NodeEvent>> events, Predicate<Envelope<NodeEvent>> which) {
    String[] names =
        events.stream().filter(which).map(Envelope::subject).distinct().toArray(String[]::new);
    return names.length == 0 ? null : Tuple.tuple().addArrayOfString(names);
  }

  /** The digest of each locked node's stored inventory rows, where it has one (V27). */
  private static Map<String, String> inventoryDigests(RowSet<Row> rows) {
    Map<String, String> stored = new HashMap<>();
    for (Row row : rows) {
      String digest = row.getString("inventory_digest");
      if (digest != null) {
        stored.put(row.getString("name"), digest);
      }
    }
    return stored;
  }

  private static Map<String, NodePosition> positions(RowSet<Row> rows) {
    return Rows.byKey(
        rows,
        row -> row.getString("name"),
        row -> new NodePosition(row.getLong("last_epoch"), row.getLong("last_seq")));
  }

  private Uni<Void> write(
      SqlConnection conn,
      ProjectionTables tables,
      BatchChanges changes,
      Map<String, String> storedDigests,
      IdentityHashMap<Envelope<NodeEvent>, String> received,
      List<Uni<Void>> provenance,
      Uni<Void> commit) {
    List<Tuple> facts = new ArrayList<>();
    List<String> inventoried = new ArrayList<>();
    InventoryRows inventories = new InventoryRows();
    InventoryRows changedGpus = new InventoryRows();
    List<String> goneNodes = new ArrayList<>();
    List<Integer> goneGpus = new ArrayList<>();
    List<String> reconciled = new ArrayList<>();
    List<Tuple> reconciles = new ArrayList<>();
    List<Tuple> steps = new ArrayList<>();
    Map<String, String> digests = new HashMap<>();
    for (NodeChange change : changes.nodes()) {
      change
          .reconcile()
          .ifPresent(
              state -> {
                reconciled.add(change.node());
                reconciles.add(ReconcileRows.reconcileTuple(change.node(), state));
                steps.addAll(ReconcileRows.stepTuples(change.node(), state));
              });
      change
          .facts()
          .ifPresent(registered -> facts.add(NodeFacts.of(registered).tuple(change.node())));
      change
          .inventory()
          .ifPresent(
              inventory -> {
                String node = change.node();
                String digest = InventoryRows.digest(inventory);
                String stored = storedDigests.get(node);
                digests.put(node, digest);
                // A restatement of the stored rows (the same digest, read under the node's lock)
                // writes none: its statements would look every GPU up three times to change
                // nothing. A change to rows this process knows writes only the rows that differ.
                KnownGpuRows.Difference difference =
                    knownGpus.update(tables, node, stored, digest, inventory);
                if (!digest.equals(stored)) {
                  if (difference == null) {
                    inventoried.add(node);
                    inventories.add(node, inventory);
                  } else {
                    difference.written().forEach(gpu -> changedGpus.add(node, gpu));
                    for (int gone : difference.gone()) {
                      goneNodes.add(node);
                      goneGpus.add(gone);
                    }
                  }
                }
              });
    }
    // In the order PostgreSQL must run them (the steps deleted before they are inserted again),
    // COMMIT last, sent together; the first failure is the statement's own, the later ones only
    // say that the transaction was aborted.
    List<Uni<Void>> statements = new ArrayList<>();
    statements.add(batch(conn, tables.updateFacts, facts));
    statements.add(whole(conn, tables.updatePosition, positionArrays(changes.nodes(), digests)));
    if (!inventoried.isEmpty()) {
      String[] inventoriedNames = inventoried.toArray(String[]::new);
      statements.add(
          whole(conn, tables.replaceGpus, inventories.gpus().addArrayOfString(inventoriedNames)));
    }
    if (!goneNodes.isEmpty()) {
      statements.add(
          whole(
              conn,
              tables.deleteGpus,
              Tuple.tuple()
                  .addArrayOfString(goneNodes.toArray(String[]::new))
                  .addArrayOfInteger(goneGpus.toArray(Integer[]::new))));
    }
    if (!changedGpus.isEmpty()) {
      statements.add(whole(conn, tables.upsertGpus, changedGpus.gpus()));
    }
    if (!changes.history().isEmpty()) {
      statements.add(whole(conn, tables.insertHistory, historyArrays(changes.history(), received)));
      statements.addAll(stateHistory(conn, tables, changes.history()));
    }
    statements.add(batch(conn, tables.upsertReconcile, reconciles));
    if (!reconciled.isEmpty()) {
      statements.add(
          whole(
              conn,
              tables.deleteSteps,
              Tuple.tuple().addArrayOfString(reconciled.toArray(String[]::new))));
    }
    statements.add(batch(conn, tables.insertStep, steps));
    statements.addAll(provenance);
    statements.add(commit);
    return Uni.join().all(statements).andFailFast().replaceWithVoid();
  }

  /**
   * The history's registrations and inventories as the rows of registration_history and
   * inventory_history (V42), the columns the as-of reads use, and the state_from by which they pick
   * them (V43): written with the history rows, in the same transaction, so that the two agree
   * whatever is applied or replayed.
   */
  private static List<Uni<Void>> stateHistory(
      SqlConnection conn, ProjectionTables tables, List<Envelope<NodeEvent>> history) {
    List<Envelope<NodeEvent>> registered = new ArrayList<>();
    List<Envelope<NodeEvent>> inventoried = new ArrayList<>();
    for (Envelope<NodeEvent> event : history) {
      if (event.data() instanceof NodeRegistered) {
        registered.add(event);
      } else if (event.data() instanceof GpuInventoryReported) {
        inventoried.add(event);
      }
    }
    StateFrom registrationStates = new StateFrom(registered);
    List<Tuple> registrations = new ArrayList<>();
    for (int i = 0; i < registered.size(); i++) {
      Envelope<NodeEvent> event = registered.get(i);
      registrations.add(
          NodeFacts.of((NodeRegistered) event.data())
              .tuple(event.subject())
              .addLong(event.epoch())
              .addLong(event.seq())
              .addOffsetDateTime(utc(event.time()))
              .addOffsetDateTime(registrationStates.of(i)));
    }
    StateFrom inventoryStates = new StateFrom(inventoried);
    List<Tuple> inventories = new ArrayList<>();
    for (int i = 0; i < inventoried.size(); i++) {
      Envelope<NodeEvent> event = inventoried.get(i);
      inventories.add(
          InventoryRows.historyRow(
                  event.subject(),
                  event.epoch(),
                  event.seq(),
                  utc(event.time()),
                  (GpuInventoryReported) event.data())
              .addOffsetDateTime(inventoryStates.of(i)));
    }
    List<Uni<Void>> statements = new ArrayList<>();
    if (!registered.isEmpty()) {
      statements.add(whole(conn, tables.lowerRegistrationStates, registrationStates.lowering()));
      statements.add(batch(conn, tables.insertRegistration, registrations));
    }
    if (!inventoried.isEmpty()) {
      statements.add(whole(conn, tables.lowerInventoryStates, inventoryStates.lowering()));
      statements.add(batch(conn, tables.insertInventory, inventories));
    }
    return statements;
  }

  private static Uni<Void> whole(SqlConnection conn, String sql, Tuple arrays) {
    return conn.preparedQuery(sql).execute(arrays).replaceWithVoid();
  }

  /**
   * The new position, last-seen time, missed events and inventory digest (null: unchanged) of every
   * node, as parallel arrays.
   */
  private static Tuple positionArrays(List<NodeChange> nodes, Map<String, String> digests) {
    return ColumnArrays.of(nodes)
        .strings(NodeChange::node)
        .longs(change -> change.position().epoch())
        .longs(change -> change.position().seq())
        .times(NodeChange::lastSeen)
        .longs(NodeChange::missed)
        .strings(change -> digests.get(change.node()))
        .tuple();
  }

  /**
   * The history's events as seven parallel arrays; payloads as JSON text, stored as text (V25).
   * Package-visible for HistoryGrowthIT, which writes its history before V11 with the same arrays.
   */
  static Tuple historyArrays(
      List<Envelope<NodeEvent>> applied, IdentityHashMap<Envelope<NodeEvent>, String> received) {
    return ColumnArrays.of(applied)
        .strings(Envelope::subject)
        .longs(Envelope::epoch)
        .longs(Envelope::seq)
        .strings(Envelope::id)
        .strings(Envelope::type)
        .times(Envelope::time)
        // The payload as the node sent it: writing the decoded record out again costs CPU and says
        // nothing more. Events decoded along the reference path (an upcast version) have no text.
        .strings(
            event -> {
              String text = received.get(event);
              return text != null ? text : text(event.data());
            })
        .tuple();
  }

  private static Uni<Void> batch(SqlConnection conn, String sql, List<Tuple> tuples) {
    if (tuples.isEmpty()) {
      return Uni.createFrom().voidItem();
    }
    return conn.preparedQuery(sql).executeBatch(tuples).replaceWithVoid();
  }

  private static OffsetDateTime utc(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }

  /** A JsonObject, not a String: the PG client would store a String as a jsonb string scalar. */
  static JsonObject json(Object value) {
    return new JsonObject(text(value));
  }

  private static String text(Object value) {
    try {
      return EventCodec.mapper().writeValueAsString(value);
    } catch (JsonProcessingException e) {
      // Every value here came out of the same mapper's decoder a moment ago.
      throw new IllegalStateException("cannot serialise " + value.getClass().getSimpleName(), e);
    }
  }
}
