package io.fleetwave.controlplane.rollout.store;

import static io.fleetwave.controlplane.database.Rows.instant;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageRequest;
import io.fleetwave.core.rollout.decide.NodeState;
import io.fleetwave.core.rollout.decide.RolloutState;
import io.fleetwave.events.json.WireNamed;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A rollout's progress read for pages and watchers, in set-oriented SQL whose cost does not follow
 * the plan's size: counts per wave and state grouped in PostgreSQL, per-node states a page at a
 * time, wave times from the few milestone events of the log (an index of V20 holds just those).
 *
 * <p>Until the engine logged a rollout (state {@code created}) it has no rows in {@code
 * rollout_node_states}; its planned nodes ({@code rollout_nodes}) are read as pending then. The
 * engine writes every planned node's row in the transaction that logs it, so a rollout has either
 * all its rows or none.
 */
@ApplicationScoped
public class RolloutProgressReader {
  /**
   * Node states as rollout_nodes stores them, in the order a page shows them: the wire names of the
   * core's NodeState.
   */
  public static final List<String> NODE_STATES = WireNamed.wireNames(NodeState.class);

  private static final String FAILED = "failed";

  /**
   * The log's milestone events: exactly the predicate of the partial index
   * rollout_event_log_milestones_idx (V20), so that PostgreSQL uses it.
   */
  private static final String MILESTONES =
      "(event_type LIKE 'io.fleetwave.rollout.wave-%'"
          + " OR event_type LIKE 'io.fleetwave.rollout.paused.%')";

  private static final String WAVE_STARTED = "io.fleetwave.rollout.wave-started.";
  private static final String WAVE_COMPLETED = "io.fleetwave.rollout.wave-completed.";
  private static final String PAUSED = "io.fleetwave.rollout.paused.";

  /** The planned nodes of a rollout the engine has not logged yet, as pending rows. */
  private static final String UNLOGGED =
      " NOT EXISTS (SELECT 1 FROM rollout_node_states logged WHERE logged.rollout = $1)";

  private final Pool pool;
  private final ObjectMapper json;

  public RolloutProgressReader(Pool pool, ObjectMapper json) {
    this.pool = pool;
    this.json = json;
  }

  /** The rollout without per-node data; empty when there is no such rollout. */
  public Uni<Optional<RolloutOverview>> summary(UUID id) {
    Uni<RowSet<Row>> header =
        ofRollout(
            id,
            "SELECT id, name, state, created_by, created_at, updated_at, last_seq,"
                + " current_wave, awaiting_promotion, status_reason,"
                + " (spec -> 'change')::text AS change, (spec -> 'strategy')::text AS strategy"
                + " FROM rollouts WHERE id = $1");
    Uni<RowSet<Row>> counts =
        ofRollout(
            id,
            "SELECT wave, state, count(*)::int AS nodes FROM rollout_node_states"
                + " WHERE rollout = $1 GROUP BY wave, state"
                + " UNION ALL SELECT wave, 'pending', count(*)::int FROM rollout_nodes"
                + " WHERE rollout = $1 AND"
                + UNLOGGED
                + " GROUP BY wave");
    Uni<RowSet<Row>> milestones =
        ofRollout(
            id,
            "SELECT seq, event_type, event_time, (data ->> 'wave')::int AS wave,"
                + " data ->> 'actor' AS actor FROM rollout_event_log WHERE rollout = $1 AND "
                + MILESTONES
                + " ORDER BY seq");
    return Uni.combine()
        .all()
        .unis(header, counts, milestones)
        .with(
            (headerRows, countRows, milestoneRows) ->
                Rows.first(headerRows).map(row -> overview(row, countRows, milestoneRows)));
  }

  /**
   * The rollout's planned nodes matching {@code filter}, by wave then name; empty when there is no
   * such rollout.
   */
  public Uni<Optional<Page<RolloutNodeView>>> nodes(
      UUID id, RolloutNodeFilter filter, PageRequest paging) {
    List<Object> params = new ArrayList<>(List.of(id));
    String logged = "rollout = $1";
    String unlogged = "rollout = $1 AND" + UNLOGGED;
    if (!filter.states().isEmpty()) {
      params.add(filter.states().toArray(String[]::new));
      String states = "$" + params.size() + "::text[]";
      logged += " AND state = ANY(" + states + ")";
      unlogged += " AND 'pending' = ANY(" + states + ")";
    }
    if (!filter.waves().isEmpty()) {
      params.add(filter.waves().toArray(Integer[]::new));
      String waves = " AND wave = ANY($" + params.size() + "::int[])";
      logged += waves;
      unlogged += waves;
    }
    String rows =
        "SELECT "
            + RolloutRows.NODE_STATE_COLUMNS
            + " FROM rollout_node_states WHERE "
            + logged
            + " UNION ALL SELECT node, wave, 'forward', 'pending', NULL::bigint, NULL::text,"
            + " NULL::timestamptz, NULL::timestamptz FROM rollout_nodes WHERE "
            + unlogged;
    Uni<RowSet<Row>> exists = ofRollout(id, "SELECT 1 FROM rollouts WHERE id = $1");
    Uni<RowSet<Row>> total =
        pool.preparedQuery("SELECT count(*) AS total FROM (" + rows + ") matching")
            .execute(Tuple.from(params));
    List<Object> pageParams = new ArrayList<>(params);
    pageParams.add(paging.size());
    pageParams.add(paging.offset());
    Uni<RowSet<Row>> page =
        pool.preparedQuery(
                rows
                    + " ORDER BY wave, node LIMIT $"
                    + (params.size() + 1)
                    + " OFFSET $"
                    + (params.size() + 2))
            .execute(Tuple.from(pageParams));
    return Uni.combine()
        .all()
        .unis(exists, total, page)
        .with(
            (existsRows, totalRows, pageRows) -> {
              if (existsRows.rowCount() == 0) {
                return Optional.<Page<RolloutNodeView>>empty();
              }
              Instant now = Instant.now();
              List<RolloutNodeView> items = Rows.each(pageRows, row -> node(row, now));
              return Optional.of(
                  new Page<>(
                      items,
                      paging.page(),
                      paging.size(),
                      totalRows.iterator().next().getLong("total")));
            });
  }

  /** A statement whose one parameter ($1) is the rollout's id. */
  private Uni<RowSet<Row>> ofRollout(UUID id, String sql) {
    return pool.preparedQuery(sql).execute(Tuple.of(id));
  }

  private RolloutOverview overview(Row row, RowSet<Row> countRows, RowSet<Row> milestoneRows) {
    Map<Integer, Map<String, Integer>> byWave = new TreeMap<>();
    Map<String, Integer> totals = zeroCounts();
    for (Row count : countRows) {
      int nodes = count.getInteger("nodes");
      String state = count.getString("state");
      byWave
          .computeIfAbsent(count.getInteger("wave"), w -> zeroCounts())
          .merge(state, nodes, Integer::sum);
      totals.merge(state, nodes, Integer::sum);
    }
    Map<Integer, Instant> started = new TreeMap<>();
    Map<Integer, Instant> completed = new TreeMap<>();
    String pausedBy = null;
    for (Row event : milestoneRows) {
      String type = event.getString("event_type");
      Instant time = event.getOffsetDateTime("event_time").toInstant();
      if (type.startsWith(WAVE_STARTED)) {
        started.putIfAbsent(event.getInteger("wave"), time);
      } else if (type.startsWith(WAVE_COMPLETED)) {
        completed.put(event.getInteger("wave"), time);
      } else if (type.startsWith(PAUSED)) {
        // v1 pauses did not record who decided.
        pausedBy = event.getString("actor") == null ? "unknown" : event.getString("actor");
      }
    }
    List<RolloutOverview.Wave> waves = new ArrayList<>();
    byWave.forEach(
        (index, counts) ->
            waves.add(
                new RolloutOverview.Wave(
                    index,
                    counts.values().stream().mapToInt(Integer::intValue).sum(),
                    counts,
                    started.get(index),
                    completed.get(index))));
    RolloutState state = WireNamed.parse(RolloutState.class, row.getString("state"));
    return new RolloutOverview(
        row.getUUID("id"),
        row.getString("name"),
        state,
        row.getString("created_by"),
        read(row.getString("change")),
        read(row.getString("strategy")),
        instant(row, "created_at"),
        instant(row, "updated_at"),
        row.getLong("last_seq"),
        row.getInteger("current_wave"),
        row.getBoolean("awaiting_promotion"),
        state == RolloutState.PAUSED ? pausedBy : null,
        row.getString("status_reason"),
        totals.values().stream().mapToInt(Integer::intValue).sum(),
        totals,
        totals.get(FAILED),
        waves);
  }

  private static Map<String, Integer> zeroCounts() {
    Map<String, Integer> counts = new LinkedHashMap<>();
    NODE_STATES.forEach(state -> counts.put(state, 0));
    return counts;
  }

  /** A row of rollout_node_states (or a pending one) as the API shows it, timed against now. */
  static RolloutNodeView node(Row row, Instant now) {
    RolloutRows.NodeState state = RolloutRows.NodeState.read(row);
    Instant started = state.startedAt();
    Instant finished = state.finishedAt();
    Long elapsed =
        started == null
            ? null
            : Duration.between(started, finished == null ? now : finished).toMillis();
    return new RolloutNodeView(state, elapsed);
  }

  private JsonNode read(String text) {
    if (text == null) {
      return null;
    }
    try {
      return json.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a stored rollout request does not read back as JSON", e);
    }
  }
}
