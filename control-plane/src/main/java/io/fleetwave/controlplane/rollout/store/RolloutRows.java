package io.fleetwave.controlplane.rollout.store;

import io.fleetwave.controlplane.database.ColumnArrays;
import io.fleetwave.controlplane.database.Rows;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The statements that write a rollout's planned nodes (rollout_nodes), where each node stands
 * (rollout_node_states) and its event log (rollout_event_log), one statement over {@code unnest}
 * each. One home for them: the API stores the planned nodes, the engine projects the rest (into the
 * live schema or a rebuild's), and test fixtures seed a rollout in any state as the engine would
 * have written it.
 */
public final class RolloutRows {
  /** rollout_nodes' columns: a planned node and its wave. */
  public static final String PLANNED_COLUMNS = "rollout, node, wave";

  /**
   * rollout_node_states' columns of one node, in {@link NodeState}'s order: what the engine writes
   * and the readers select (the rollout, the key's other half, left out).
   */
  public static final String NODE_STATE_COLUMNS =
      "node, wave, phase, state, generation, reason, started_at, finished_at";

  /** rollout_event_log's columns: one logged event of a rollout. */
  public static final String EVENT_COLUMNS = "rollout, seq, event_type, event_time, data";

  private final String schema;

  /**
   * @param schema a plain SQL identifier the caller has checked ({@code public}, or a rebuild's
   *     scratch schema)
   */
  public RolloutRows(String schema) {
    this.schema = schema;
  }

  /**
   * One node's row of rollout_node_states; a generation, reason or time may be null.
   *
   * @param wave 1 = the canary
   * @param phase forward, or rollback once the node is being put back
   * @param state pending, in-flight, succeeded, failed or skipped (revoked before it was started)
   * @param generation the spec generation sent to the node, null before
   * @param reason why it failed (or was kept out of service), null otherwise
   */
  public record NodeState(
      String node,
      int wave,
      String phase,
      String state,
      Long generation,
      String reason,
      Instant startedAt,
      Instant finishedAt) {

    /** The row as the readers select it ({@link #NODE_STATE_COLUMNS}, or a pending node's). */
    static NodeState read(Row row) {
      return new NodeState(
          row.getString("node"),
          row.getInteger("wave"),
          row.getString("phase"),
          row.getString("state"),
          row.getLong("generation"),
          row.getString("reason"),
          Rows.instant(row, "started_at"),
          Rows.instant(row, "finished_at"));
    }
  }

  /** One row of rollout_event_log: the event's seq, wire type, time and data as JSON text. */
  public record LoggedEvent(long seq, String type, Instant time, String data) {}

  /** The planned nodes with their waves (1-based); a node already planned is left as it is. */
  public Uni<Void> insertPlanned(
      SqlConnection conn, UUID rollout, List<String> nodes, List<Integer> waves) {
    return conn.preparedQuery(
            "INSERT INTO "
                + table("rollout_nodes")
                + " ("
                + PLANNED_COLUMNS
                + ") SELECT $1, node, wave FROM"
                + " unnest($2::text[], $3::int[]) AS planned (node, wave) ON"
                + " CONFLICT DO NOTHING")
        .execute(
            Tuple.tuple()
                .addUUID(rollout)
                .addArrayOfString(nodes.toArray(String[]::new))
                .addArrayOfInteger(waves.toArray(Integer[]::new)))
        .replaceWithVoid();
  }

  /** Writes where each of these nodes stands now, over what was written before. */
  public Uni<Void> upsertStates(SqlConnection conn, UUID rollout, List<NodeState> states) {
    if (states.isEmpty()) {
      return Uni.createFrom().voidItem();
    }
    return conn.preparedQuery(
            "INSERT INTO "
                + table("rollout_node_states")
                + " (rollout, "
                + NODE_STATE_COLUMNS
                + ") SELECT $1, * FROM unnest($2::text[],"
                + " $3::int[], $4::text[], $5::text[], $6::bigint[], $7::text[],"
                + " $8::timestamptz[], $9::timestamptz[]) ON CONFLICT (rollout, node) DO UPDATE"
                + " SET phase = EXCLUDED.phase, state = EXCLUDED.state, generation ="
                + " EXCLUDED.generation, reason = EXCLUDED.reason, started_at ="
                + " EXCLUDED.started_at, finished_at = EXCLUDED.finished_at")
        .execute(
            ColumnArrays.after(Tuple.of(rollout), states)
                .strings(NodeState::node)
                .integers(NodeState::wave)
                .strings(NodeState::phase)
                .strings(NodeState::state)
                .longs(NodeState::generation)
                .strings(NodeState::reason)
                .times(NodeState::startedAt)
                .times(NodeState::finishedAt)
                .tuple())
        .replaceWithVoid();
  }

  /** Appends these events to the rollout's log; an event already logged (its seq) is kept. */
  public Uni<Void> insertEvents(SqlConnection conn, UUID rollout, List<LoggedEvent> events) {
    if (events.isEmpty()) {
      return Uni.createFrom().voidItem();
    }
    return conn.preparedQuery(
            "INSERT INTO "
                + table("rollout_event_log")
                + " ("
                + EVENT_COLUMNS
                + ") SELECT"
                + " $1, s, t, w, d::jsonb FROM unnest($2::bigint[], $3::text[],"
                + " $4::timestamptz[], $5::text[]) AS e (s, t, w, d) ON CONFLICT DO NOTHING")
        .execute(
            ColumnArrays.after(Tuple.of(rollout), events)
                .longs(LoggedEvent::seq)
                .strings(LoggedEvent::type)
                .times(LoggedEvent::time)
                .strings(LoggedEvent::data)
                .tuple())
        .replaceWithVoid();
  }

  private String table(String name) {
    return schema + "." + name;
  }
}
