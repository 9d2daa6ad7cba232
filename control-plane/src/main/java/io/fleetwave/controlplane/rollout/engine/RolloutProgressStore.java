package io.fleetwave.controlplane.rollout.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.database.Connections;
import io.fleetwave.controlplane.database.PipelinedTransaction;
import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.controlplane.rollout.store.RequestFacts;
import io.fleetwave.controlplane.rollout.store.RolloutRows;
import io.fleetwave.controlplane.rollout.store.RolloutSignals;
import io.fleetwave.controlplane.rollout.store.ShownPlan;
import io.fleetwave.core.rollout.decide.NodeRun;
import io.fleetwave.core.rollout.decide.OperatorRequest;
import io.fleetwave.core.rollout.decide.RolloutRun;
import io.fleetwave.core.rollout.decide.RolloutState;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.fact.ControlFact;
import io.fleetwave.events.fact.OperatorRequestHandled;
import io.fleetwave.events.json.WireNamed;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutPlanChunk;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The engine's side of PostgreSQL: which rollouts are active with their stored plans, the operator
 * requests waiting for it, and the projection of every rollout's events (rollouts row,
 * rollout_node_states, rollout_event_log). Every call is bounded by the engine's timeout.
 */
public final class RolloutProgressStore {
  private static final String INACTIVE = RolloutState.INACTIVE_SQL;

  private static final java.util.regex.Pattern IDENTIFIER =
      java.util.regex.Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private final Pool pool;
  private final ObjectMapper json;
  private final Duration timeout;
  private final String schema;
  private final RolloutRows rows;

  public RolloutProgressStore(Pool pool, ObjectMapper json, Duration timeout) {
    this(pool, json, timeout, "public");
  }

  /**
   * @param schema where the projection is written: {@code public}, or a scratch schema that a
   *     rebuild writes with the same statements
   */
  public RolloutProgressStore(Pool pool, ObjectMapper json, Duration timeout, String schema) {
    if (!IDENTIFIER.matcher(schema).matches()) {
      throw new IllegalArgumentException("not a plain SQL identifier: '" + schema + "'");
    }
    this.pool = pool;
    this.json = json;
    this.timeout = timeout;
    this.schema = schema;
    this.rows = new RolloutRows(schema);
  }

  private String table(String name) {
    return schema + "." + name;
  }

  /**
   * An active rollout as stored: its state, and where its records start in fleet.rollout-events
   * (null before the engine logged it, or for a rollout logged before that was kept).
   */
  public record ActiveRollout(
      UUID id, String name, RolloutState state, Integer logPartition, Long logOffset) {
    /** Whether the engine logged it already (the API stores a rollout before). */
    public boolean logged() {
      return state != RolloutState.CREATED;
    }
  }

  /** The active rollouts; their plans are read once each, with {@link #creation}. */
  public List<ActiveRollout> active() {
    List<ActiveRollout> out = new ArrayList<>();
    pool.query(
            "SELECT id, name, state, log_partition, log_offset FROM rollouts WHERE state NOT IN "
                + INACTIVE
                + " ORDER BY created_at, id")
        .execute()
        .await()
        .atMost(timeout)
        .forEach(
            row ->
                out.add(
                    new ActiveRollout(
                        row.getUUID("id"),
                        row.getString("name"),
                        WireNamed.parse(RolloutState.class, row.getString("state")),
                        row.getInteger("log_partition"),
                        row.getLong("log_offset"))));
    return out;
  }

  /**
   * Records where the rollout's records start in fleet.rollout-events, unless that is known: a
   * taking-over engine reads from there rather than from offset 0.
   */
  public void logged(UUID rollout, int partition, long offset) {
    pool.preparedQuery(
            "UPDATE "
                + table("rollouts")
                + " SET log_partition = $2, log_offset = $3 WHERE id = $1 AND log_offset IS NULL")
        .execute(Tuple.of(rollout, partition, offset))
        .await()
        .atMost(timeout);
  }

  /**
   * How a rollout was asked for: the request, its plan (JSON text) and who asked, as the API stored
   * them. The engine logs them in RolloutCreated when it takes the rollout up.
   */
  public record Creation(String specJson, String planJson, String actor, Instant createdAt) {}

  public Creation creation(UUID rollout) {
    var rows =
        pool.preparedQuery(
                "SELECT spec::text AS spec, plan::text AS plan, created_by, created_at FROM rollouts"
                    + " WHERE id = $1")
            .execute(Tuple.of(rollout))
            .await()
            .atMost(timeout);
    if (rows.rowCount() == 0) {
      throw new IllegalStateException("rollout " + rollout + " is not stored");
    }
    Row row = rows.iterator().next();
    return new Creation(
        row.getString("spec"),
        row.getString("plan"),
        row.getString("created_by"),
        row.getOffsetDateTime("created_at").toInstant());
  }

  /** Unhandled requests per rollout, oldest first. */
  public Map<UUID, List<OperatorRequest>> pendingRequests() {
    return Rows.grouped(
        pool.query(
                "SELECT id, rollout, action, reason, actor FROM rollout_requests WHERE handled_at IS"
                    + " NULL ORDER BY requested_at, id")
            .execute()
            .await()
            .atMost(timeout),
        row -> row.getUUID("rollout"),
        row ->
            new OperatorRequest(
                row.getUUID("id"),
                WireNamed.parse(OperatorRequest.Action.class, row.getString("action")),
                row.getString("reason"),
                row.getString("actor")));
  }

  /**
   * Which of {@code rollouts} are stored and finished. A request on a rollout the tables lack is
   * not one of them: a rebuild restores the request (fleet.control-facts) before its rollout
   * (fleet.rollout-events), and the request waits for it.
   */
  public Set<UUID> finished(Set<UUID> rollouts) {
    Set<UUID> out = new java.util.HashSet<>();
    if (rollouts.isEmpty()) {
      return out;
    }
    pool.preparedQuery("SELECT id FROM rollouts WHERE state IN " + INACTIVE + " AND id = ANY($1)")
        .execute(Tuple.tuple().addArrayOfUUID(rollouts.toArray(UUID[]::new)))
        .await()
        .atMost(timeout)
        .forEach(row -> out.add(row.getUUID("id")));
    return out;
  }

  /**
   * Stores an answer recorded on fleet.control-facts (once, by its id) and signals it, on commit,
   * to whoever waits for it, on any replica.
   */
  public void answered(Envelope<ControlFact> fact, OperatorRequestHandled handled) {
    Connections.withTransaction(pool, conn -> RequestFacts.handled(conn, fact, handled))
        .await()
        .atMost(timeout);
  }

  /**
   * Writes what the run's newest events changed; safe to repeat (replays write the same rows). A
   * RolloutCreated that carries its request and plan writes the rollout's row and planned nodes
   * (where the API already stored them, they are left as they are), so the tables are a projection
   * of the log.
   */
  public void project(
      RolloutRun run,
      List<Envelope<RolloutEvent>> appended,
      Set<String> changedNodes,
      boolean awaitingPromotion) {
    RolloutState state = run.status().state();
    // The writes after the (rare) creation go to PostgreSQL together with BEGIN and COMMIT: one
    // round trip a round instead of one per statement (PipelinedTransaction), and the engine's
    // next round waits for this one.
    PipelinedTransaction.run(
            pool,
            transaction -> {
              io.vertx.mutiny.sqlclient.SqlConnection conn = transaction.connection();
              return insertCreated(conn, run, appended)
                  .chain(
                      () ->
                          io.smallrye.mutiny.Uni.join()
                              .all(
                                  conn.preparedQuery(
                                          "UPDATE "
                                              + table("rollouts")
                                              + " SET state = $2, last_seq = $3, current_wave ="
                                              + " $4, awaiting_promotion = $5, status_reason = $6,"
                                              + " updated_at = now() WHERE id = $1")
                                      .execute(
                                          Tuple.of(
                                              run.id(),
                                              state.wireName(),
                                              run.seq(),
                                              run.currentWave(),
                                              awaitingPromotion,
                                              run.statusReason()))
                                      .replaceWithVoid(),
                                  upsertNodes(conn, run, changedNodes),
                                  insertEvents(conn, run.id(), appended),
                                  // Readers of the live projection (SSE, the API) re-read once
                                  // this commits.
                                  schema.equals("public")
                                      ? RolloutSignals.notify(
                                          conn, RolloutSignals.changed(run.id()))
                                      : io.smallrye.mutiny.Uni.createFrom().voidItem(),
                                  transaction.commit())
                              .andFailFast()
                              .replaceWithVoid());
            })
        .await()
        .atMost(boundFor(changedNodes.size()));
  }

  /**
   * The bound on writing a projection: the engine's timeout per 10,000 nodes written, so a rollout
   * of 100,000 nodes (its creation, a takeover) is bounded too, not refused forever.
   */
  private Duration boundFor(int nodes) {
    return timeout.multipliedBy(1 + nodes / 10_000);
  }

  /**
   * The rollout's row and planned nodes, when the appended events complete its creation (its
   * RolloutCreated, or the last chunk of one logged in chunks), it carries its request and plan,
   * and the row is not there yet: the API stores row and nodes in one transaction, so in the live
   * projection only a rebuild's schema lacks them. Looked up first rather than left to {@code ON
   * CONFLICT}: PostgreSQL parses the plan's text into jsonb while planning the insert, whether or
   * not the row is then kept (seconds for 100,000 nodes, at every creation and takeover).
   */
  private io.smallrye.mutiny.Uni<Void> insertCreated(
      io.vertx.mutiny.sqlclient.SqlConnection conn,
      RolloutRun run,
      List<Envelope<RolloutEvent>> appended) {
    RolloutCreated created = run.created();
    Envelope<RolloutEvent> completing =
        appended.stream().filter(e -> e.seq() == run.createdSeq()).findFirst().orElse(null);
    if (created == null || !created.selfContained() || completing == null) {
      return io.smallrye.mutiny.Uni.createFrom().voidItem();
    }
    UUID rollout = run.id();
    return conn.preparedQuery("SELECT 1 FROM " + table("rollouts") + " WHERE id = $1")
        .execute(Tuple.of(rollout))
        .chain(
            found ->
                found.rowCount() > 0
                    ? io.smallrye.mutiny.Uni.createFrom().voidItem()
                    : insertRolloutAndNodes(conn, rollout, created, completing));
  }

  private io.smallrye.mutiny.Uni<Void> insertRolloutAndNodes(
      io.vertx.mutiny.sqlclient.SqlConnection conn,
      UUID rollout,
      RolloutCreated created,
      Envelope<RolloutEvent> completing) {
    List<String> nodes = new ArrayList<>();
    List<Integer> waves = new ArrayList<>();
    for (int w = 0; w < created.waves().size(); w++) {
      for (String node : created.waves().get(w)) {
        nodes.add(node);
        waves.add(w + 1);
      }
    }
    return conn.preparedQuery(
            "INSERT INTO "
                + table("rollouts")
                + " (id, name, spec, plan, shown_plan, state, created_by, created_at,"
                + " updated_at) VALUES ($1, $2, $3::text::jsonb, $4::text::jsonb,"
                + " $5::text::jsonb, 'running', $6, $7, $7) ON CONFLICT (id) DO NOTHING")
        .execute(
            Tuple.tuple()
                .addUUID(rollout)
                .addString(created.name())
                .addString(created.spec().toString())
                .addString(created.plan().toString())
                .addString(shownPlan(created.plan()).map(JsonNode::toString).orElse(null))
                .addString(created.actor())
                .addOffsetDateTime(completing.time().atOffset(ZoneOffset.UTC)))
        .chain(() -> rows.insertPlanned(conn, rollout, nodes, waves));
  }

  /**
   * The plan as the API shows it, as the API stores it at creation ({@link ShownPlan}): a rebuilt
   * row shows a large plan cut, as the live one does. A plan shown complete is not read again.
   */
  private java.util.Optional<JsonNode> shownPlan(JsonNode plan) {
    if (plan.path("plannedNodes").asInt() <= ShownPlan.COMPLETE_UP_TO) {
      return java.util.Optional.empty();
    }
    try {
      return ShownPlan.cut(LoggedPlan.read(json, plan), json);
    } catch (java.io.IOException e) {
      // The fold checked this plan before its creation was projected (LoggedPlan.Check).
      throw new IllegalStateException("the logged plan does not read: " + e.getMessage(), e);
    }
  }

  private io.smallrye.mutiny.Uni<Void> upsertNodes(
      io.vertx.mutiny.sqlclient.SqlConnection conn, RolloutRun run, Set<String> changed) {
    List<RolloutRows.NodeState> states = new ArrayList<>(changed.size());
    for (String name : changed) {
      NodeRun node = run.nodeRun(name);
      states.add(
          new RolloutRows.NodeState(
              name,
              node.wave(),
              node.phase().wireName(),
              node.state().wireName(),
              node.generation() == 0 ? null : node.generation(),
              node.reason(),
              node.startedAt(),
              node.finishedAt()));
    }
    return rows.upsertStates(conn, run.id(), states);
  }

  /**
   * An event's data as the event log shows it. A plan chunk shows its place and length, not its
   * text: the joined plan is the rollout's own row, and a rollout of 100,000 nodes would otherwise
   * write its plan twice.
   */
  private static String eventData(RolloutEvent event) {
    if (event instanceof RolloutPlanChunk chunk) {
      return EventCodec.mapper()
          .createObjectNode()
          .put("index", chunk.index())
          .put("chars", chunk.text().length())
          .toString();
    }
    return EventCodec.mapper().valueToTree(event).toString();
  }

  private io.smallrye.mutiny.Uni<Void> insertEvents(
      io.vertx.mutiny.sqlclient.SqlConnection conn,
      UUID rollout,
      List<Envelope<RolloutEvent>> appended) {
    return rows.insertEvents(
        conn,
        rollout,
        appended.stream()
            .map(e -> new RolloutRows.LoggedEvent(e.seq(), e.type(), e.time(), eventData(e.data())))
            .toList());
  }
}
