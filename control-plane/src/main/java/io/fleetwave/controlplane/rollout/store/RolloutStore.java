package io.fleetwave.controlplane.rollout.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.database.Connections;
import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageRequest;
import io.fleetwave.core.rollout.decide.RolloutState;
import io.fleetwave.core.rollout.plan.NodePlan;
import io.fleetwave.core.rollout.plan.PlannedWave;
import io.fleetwave.core.rollout.plan.RolloutPlan;
import io.fleetwave.core.rollout.plan.RolloutSpec;
import io.fleetwave.events.json.WireNamed;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Rollouts in PostgreSQL (tables {@code rollouts} and {@code rollout_nodes}). Creating one checks,
 * in the same transaction and under a table lock that serialises creators, that none of its planned
 * nodes belongs to an active rollout.
 */
@ApplicationScoped
public class RolloutStore {
  private static final String INACTIVE = RolloutState.INACTIVE_SQL;

  private static final RolloutRows ROWS = new RolloutRows("public");

  private final Pool pool;
  private final ObjectMapper json;

  public RolloutStore(Pool pool, ObjectMapper json) {
    this.pool = pool;
    this.json = json;
  }

  /**
   * Stores a rollout in state {@code created} with its plan, the plan as shown ({@link ShownPlan}),
   * who asked ({@code actor}) and the node of every wave; the engine logs it (RolloutCreated) when
   * it takes it up. The answer carries the plan as shown.
   *
   * @throws RolloutConflictException (as the Uni's failure) when a planned node belongs to an
   *     active rollout
   */
  public Uni<StoredRollout> create(RolloutSpec spec, RolloutPlan plan, String actor) {
    UUID id = UUID.randomUUID();
    List<String> nodes = new ArrayList<>();
    List<Integer> waves = new ArrayList<>();
    for (PlannedWave wave : plan.waves()) {
      for (NodePlan node : wave.nodes()) {
        nodes.add(node.node());
        waves.add(wave.number());
      }
    }
    String specJson = write(spec);
    String planJson = write(plan);
    Optional<JsonNode> cut = ShownPlan.cut(plan, json);
    String shownJson = cut.map(this::write).orElse(null);
    return Connections.withTransaction(
            pool,
            connection ->
                connection
                    .query("LOCK TABLE rollouts IN SHARE ROW EXCLUSIVE MODE")
                    .execute()
                    .chain(() -> failOnConflict(connection, nodes))
                    .chain(
                        () ->
                            connection
                                .preparedQuery(
                                    "INSERT INTO rollouts (id, name, spec, plan, shown_plan, state,"
                                        + " created_by) VALUES ($1, $2, $3::text::jsonb,"
                                        + " $4::text::jsonb, $5::text::jsonb, 'created', $6)"
                                        + " RETURNING id, name, state, created_at, updated_at")
                                .execute(
                                    Tuple.of(
                                        id, spec.name(), specJson, planJson, shownJson, actor)))
                    .chain(
                        inserted ->
                            ROWS.insertPlanned(connection, id, nodes, waves)
                                .map(ignored -> inserted.iterator().next())))
        // The answer's plan, complete, is up to a few hundred KB of JSON: built off the event loop
        // the transaction completed on.
        .emitOn(Infrastructure.getDefaultWorkerPool())
        .map(
            row ->
                stored(row, json.valueToTree(spec), cut.orElseGet(() -> json.valueToTree(plan))));
  }

  private Uni<Void> failOnConflict(SqlConnection connection, List<String> nodes) {
    return connection
        .preparedQuery(
            "SELECT rn.node, r.id, r.name FROM rollout_nodes rn JOIN rollouts r ON r.id ="
                + " rn.rollout WHERE r.state NOT IN "
                + INACTIVE
                + " AND rn.node = ANY($1) ORDER BY rn.node")
        .execute(Tuple.tuple().addArrayOfString(nodes.toArray(String[]::new)))
        .map(
            rows -> {
              if (rows.rowCount() == 0) {
                return null;
              }
              List<String> overlap = Rows.each(rows, row -> row.getString("node"));
              Row first = rows.iterator().next();
              throw new RolloutConflictException(
                  overlap, first.getUUID("id"), first.getString("name"));
            });
  }

  /**
   * The rollout's state alone, for callers that only ask whether it exists or is still active (an
   * event stream re-asks at every change).
   */
  public Uni<Optional<RolloutState>> state(UUID id) {
    return pool.preparedQuery("SELECT state FROM rollouts WHERE id = $1")
        .execute(Tuple.of(id))
        .map(
            rows ->
                Rows.first(rows)
                    .map(row -> WireNamed.parse(RolloutState.class, row.getString("state"))));
  }

  /**
   * Newest first; only those in one of {@code states} unless it is empty. The planned-node count is
   * counted from rollout_nodes rather than read from the plan, which would decompress the whole
   * plan (megabytes for 10,000 nodes) of every listed rollout.
   */
  public Uni<Page<RolloutSummary>> list(PageRequest paging, List<RolloutState> states) {
    String where = states.isEmpty() ? "" : " WHERE r.state = ANY($1::text[])";
    List<Object> filter = new ArrayList<>();
    if (!states.isEmpty()) {
      filter.add(states.stream().map(RolloutState::wireName).toArray(String[]::new));
    }
    List<Object> pageParams = new ArrayList<>(filter);
    pageParams.add(paging.size());
    pageParams.add(paging.offset());
    Uni<Long> total =
        pool.preparedQuery("SELECT count(*) AS total FROM rollouts r" + where)
            .execute(Tuple.from(filter))
            .map(rows -> rows.iterator().next().getLong("total"));
    Uni<List<RolloutSummary>> items =
        pool.preparedQuery(
                "SELECT r.id, r.name, r.state, r.created_at, (SELECT count(*)::int FROM"
                    + " rollout_nodes n WHERE n.rollout = r.id) AS planned,"
                    + " r.spec->'change'->>'migConfig' AS mig_config,"
                    + " r.spec->'change'->>'driverVersion' AS driver_version FROM rollouts r"
                    + where
                    + " ORDER BY r.created_at DESC, r.id LIMIT $"
                    + (filter.size() + 1)
                    + " OFFSET $"
                    + (filter.size() + 2))
            .execute(Tuple.from(pageParams))
            .map(
                rows ->
                    Rows.each(
                        rows,
                        row ->
                            new RolloutSummary(
                                row.getUUID("id"),
                                row.getString("name"),
                                WireNamed.parse(RolloutState.class, row.getString("state")),
                                row.getOffsetDateTime("created_at").toInstant(),
                                row.getInteger("planned"),
                                row.getString("mig_config"),
                                row.getString("driver_version"))));
    return Uni.combine()
        .all()
        .unis(items, total)
        .with((page, count) -> new Page<>(page, paging.page(), paging.size(), count));
  }

  /** The rollout's events after {@code afterSeq}, oldest first, at most {@code limit}. */
  public Uni<List<RolloutEventView>> events(UUID id, long afterSeq, int limit) {
    return pool.preparedQuery(
            "SELECT seq, event_type, event_time, data::text AS data FROM rollout_event_log WHERE"
                + " rollout = $1 AND seq > $2 ORDER BY seq LIMIT $3")
        .execute(Tuple.of(id, afterSeq, limit))
        .map(
            rows ->
                Rows.each(
                    rows,
                    row ->
                        new RolloutEventView(
                            row.getLong("seq"),
                            row.getString("event_type"),
                            row.getOffsetDateTime("event_time").toInstant(),
                            read(row.getString("data")))));
  }

  private static StoredRollout stored(Row row, JsonNode spec, JsonNode plan) {
    return new StoredRollout(
        row.getUUID("id"),
        row.getString("name"),
        WireNamed.parse(RolloutState.class, row.getString("state")),
        row.getOffsetDateTime("created_at").toInstant(),
        row.getOffsetDateTime("updated_at").toInstant(),
        spec,
        plan);
  }

  private String write(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + value.getClass().getSimpleName(), e);
    }
  }

  private JsonNode read(String text) {
    try {
      return json.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a stored rollout does not read back as JSON", e);
    }
  }
}
