package io.fleetwave.controlplane.rollout.store;

import static io.fleetwave.controlplane.database.Rows.instant;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fleetwave.controlplane.database.PipelinedTransaction;
import io.fleetwave.controlplane.database.PipelinedTransaction.Read;
import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.core.rollout.decide.RolloutState;
import io.fleetwave.events.json.WireNamed;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/**
 * GET /api/v1/rollouts/{id}: a rollout's request, its plan as shown ({@link ShownPlan}) and its
 * progress, bounded whatever the rollout's size.
 *
 * <p>The request and the plan never change once stored (no statement updates {@code spec}, {@code
 * plan} or {@code shown_plan} of a rollout, and none deletes one), so they are read once per
 * rollout and held, at most {@link #HELD_CHARS} characters of them (least recently used dropped
 * first): a complete plan of up to {@link #FULL_VIEW_NODES} nodes is a few hundred KB of jsonb to
 * read and parse. Each call reads only what moves: the rollout's state, its counts and the first
 * {@link #FULL_VIEW_NODES} per-node states.
 */
@ApplicationScoped
public class RolloutFullView {
  /**
   * The most per-node entries the full view carries, in its progress and in its plan: the largest
   * page GET .../nodes serves. Up to this many planned nodes the view is complete; above it, it
   * stays about 100 KB whatever the rollout's size (issue 14: it was 8 MB at 10,000 nodes).
   */
  public static final int FULL_VIEW_NODES = 500;

  private static final String HEADER =
      "SELECT id, name, state, created_at, updated_at, last_seq, current_wave, awaiting_promotion,"
          + " status_reason FROM rollouts WHERE id = $1";
  private static final String COUNTS =
      "SELECT state, count(*)::int AS nodes FROM rollout_node_states WHERE rollout = $1"
          + " GROUP BY state";
  private static final String NODES =
      "SELECT "
          + RolloutRows.NODE_STATE_COLUMNS
          + " FROM rollout_node_states WHERE rollout = $1 ORDER BY wave, started_at NULLS LAST, node"
          + " LIMIT $2";

  /**
   * The bound on the requests and plans held, in characters of their JSON: a plan cut for the view
   * is a few KB, a complete one (up to {@link #FULL_VIEW_NODES} nodes) at most a few hundred.
   */
  static final long HELD_CHARS = 8L << 20;

  /**
   * What the view shows of a stored rollout that never changes. Held and shared between calls:
   * never modified after it is read.
   */
  record Shown(JsonNode spec, JsonNode plan, int chars) {}

  private final Pool pool;
  private final ObjectMapper json;
  private final AsyncCache<UUID, Shown> held;

  @Inject
  public RolloutFullView(Pool pool, ObjectMapper json) {
    this(pool, json, HELD_CHARS);
  }

  RolloutFullView(Pool pool, ObjectMapper json, long heldChars) {
    this.pool = pool;
    this.json = json;
    this.held =
        Caffeine.newBuilder()
            .maximumWeight(heldChars)
            .weigher(RolloutFullView::weight)
            .buildAsync();
  }

  /** The characters of JSON held now, after any eviction due (for tests). */
  long heldChars() {
    held.synchronous().cleanUp();
    return held.synchronous().policy().eviction().orElseThrow().weightedSize().orElseThrow();
  }

  /**
   * The rollout with its progress: node counts per state from all its nodes, per-node entries for
   * at most {@link #FULL_VIEW_NODES} of them (in wave order, started ones first), and the plan as
   * shown ({@link ShownPlan}). Empty when there is no such rollout.
   */
  public Uni<Optional<RolloutView>> view(UUID id) {
    // The row, its counts and its first nodes in one round trip and one snapshot: the counts and
    // the per-node states agree with each other and with the row's state.
    Uni<Optional<Progress>> progress =
        PipelinedTransaction.readTogether(
                pool,
                new Read(HEADER, Tuple.of(id)),
                new Read(COUNTS, Tuple.of(id)),
                new Read(NODES, Tuple.of(id, FULL_VIEW_NODES)))
            .map(
                rows ->
                    Rows.first(rows.get(0))
                        .map(header -> new Progress(header, rows.get(1), rows.get(2))));
    return Uni.combine()
        .all()
        .unis(progress, shown(id))
        .with(
            (read, shown) ->
                read.isEmpty() || shown.isEmpty()
                    ? Optional.<RolloutView>empty()
                    : Optional.of(
                        view(
                            read.get().row(),
                            read.get().counts(),
                            read.get().nodes(),
                            shown.get())));
  }

  /** What one call reads of a rollout's progress. */
  private record Progress(Row row, RowSet<Row> counts, RowSet<Row> nodes) {}

  /**
   * The request and the plan as shown, read once per rollout (concurrent first calls share one
   * read); a rollout not found is not remembered, so one created since is found.
   */
  private Uni<Optional<Shown>> shown(UUID id) {
    return Uni.createFrom()
        .completionStage(
            () -> held.get(id, (key, executor) -> read(key).subscribeAsCompletionStage()))
        .map(Optional::ofNullable);
  }

  /** Null when there is no such rollout (Caffeine then holds nothing for it). */
  private Uni<Shown> read(UUID id) {
    return pool.preparedQuery(
            "SELECT spec::text AS spec, coalesce(shown_plan, plan)::text AS plan FROM rollouts"
                + " WHERE id = $1")
        .execute(Tuple.of(id))
        .map(
            rows ->
                Rows.first(rows)
                    .map(
                        row -> {
                          String spec = row.getString("spec");
                          String plan = row.getString("plan");
                          return new Shown(read(spec), read(plan), spec.length() + plan.length());
                        })
                    .orElse(null));
  }

  // The JSON's size in characters stands for the tree's: a bound, not an account.
  private static int weight(UUID id, Shown shown) {
    return shown.chars();
  }

  private static RolloutView view(
      Row row, RowSet<Row> countRows, RowSet<Row> nodeRows, Shown shown) {
    Map<String, Integer> counts = new TreeMap<>();
    for (String state : RolloutProgressReader.NODE_STATES) {
      counts.put(state, 0);
    }
    countRows.forEach(count -> counts.put(count.getString("state"), count.getInteger("nodes")));
    int total = counts.values().stream().mapToInt(Integer::intValue).sum();
    RolloutProgress progress =
        new RolloutProgress(
            row.getLong("last_seq"),
            row.getInteger("current_wave"),
            row.getBoolean("awaiting_promotion"),
            row.getString("status_reason"),
            counts,
            waves(nodeRows),
            nodeRows.rowCount() < total);
    return new RolloutView(
        row.getUUID("id"),
        row.getString("name"),
        WireNamed.parse(RolloutState.class, row.getString("state")),
        instant(row, "created_at"),
        instant(row, "updated_at"),
        progress,
        shown.spec(),
        shown.plan());
  }

  private static List<RolloutProgress.Wave> waves(RowSet<Row> rows) {
    TreeMap<Integer, List<RolloutNodeView>> byWave = new TreeMap<>();
    Instant now = Instant.now();
    for (Row row : rows) {
      RolloutNodeView node = RolloutProgressReader.node(row, now);
      byWave.computeIfAbsent(node.row().wave(), k -> new ArrayList<>()).add(node);
    }
    List<RolloutProgress.Wave> waves = new ArrayList<>();
    byWave.forEach((number, nodes) -> waves.add(new RolloutProgress.Wave(number, nodes)));
    return waves;
  }

  private JsonNode read(String text) {
    try {
      return json.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a stored rollout does not read back as JSON", e);
    }
  }
}
