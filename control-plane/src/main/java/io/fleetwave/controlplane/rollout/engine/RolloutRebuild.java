package io.fleetwave.controlplane.rollout.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.projection.ProjectionComparison;
import io.fleetwave.controlplane.rollout.store.RolloutRows;
import io.fleetwave.core.rollout.decide.LoggedRecord;
import io.fleetwave.core.rollout.decide.RolloutDecider;
import io.fleetwave.core.rollout.decide.RolloutFold;
import io.fleetwave.core.rollout.decide.RolloutRules;
import io.fleetwave.core.rollout.decide.RolloutRun;
import io.fleetwave.events.Envelope;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * The rollout tables are a projection of fleet.rollout-events: this rebuilds them from offset 0
 * with the engine's own fold ({@link RolloutFold}, stale terms ignored alike) and projection
 * statements ({@link RolloutProgressStore}) into a schema, and compares two schemas row by row.
 *
 * <p>Compared: every column but the rows' own timestamps ({@code created_at}, {@code updated_at}:
 * when PostgreSQL wrote them), for rollouts in the log; the plan by the MD5 of its jsonb text
 * (PostgreSQL writes equal jsonb as equal text), so that a difference in a large rollout's row
 * lists a hash instead of its plan (55 MB of JSON at 100,000 nodes). Left out: rollouts still in
 * state {@code created} (stored by the API, not yet taken up by an engine, so not yet in the log),
 * rollouts logged before RolloutCreated carried its request and plan (v1: those live in PostgreSQL
 * alone), rollouts whose creation does not fold (failed: nothing in the log says what they
 * planned), and {@code rollout_requests} (a projection of fleet.control-facts, compared with the
 * other facts' tables). Where the rollouts' records start in the log ({@code log_partition}, {@code
 * log_offset}) is written, not compared: the live engine keeps the first start it logged.
 */
public final class RolloutRebuild {
  private static final Logger LOG = Logger.getLogger(RolloutRebuild.class);
  private static final java.net.URI VERDICT_SOURCE =
      java.net.URI.create("fleetwave:rollout-rebuild");

  /** The rollout tables, parents first, each with the columns compared. */
  public static final Map<String, String> TABLES =
      Map.copyOf(
          Map.of(
              "rollouts",
              "id, name, spec, md5(plan::text) AS plan_md5, shown_plan, state, created_by,"
                  + " last_seq, current_wave, awaiting_promotion, status_reason",
              "rollout_nodes",
              RolloutRows.PLANNED_COLUMNS,
              "rollout_node_states",
              "rollout, " + RolloutRows.NODE_STATE_COLUMNS,
              "rollout_event_log",
              RolloutRows.EVENT_COLUMNS));

  private static final List<String> ORDER =
      List.of("rollouts", "rollout_nodes", "rollout_node_states", "rollout_event_log");

  private final Pool pool;
  private final ObjectMapper json;
  private final Duration timeout;

  public RolloutRebuild(Pool pool, ObjectMapper json, Duration timeout) {
    this.pool = pool;
    this.json = json;
    this.timeout = timeout;
  }

  /** Empty scratch copies of the rollout tables in {@code schema} (no foreign keys). */
  public void recreate(String schema) {
    StringBuilder sql = new StringBuilder("CREATE SCHEMA IF NOT EXISTS " + schema + ";");
    for (String table : ORDER.reversed()) {
      sql.append("DROP TABLE IF EXISTS ").append(schema).append('.').append(table).append(';');
    }
    for (String table : ORDER) {
      sql.append("CREATE TABLE ")
          .append(schema)
          .append('.')
          .append(table)
          .append(" (LIKE public.")
          .append(table)
          .append(" INCLUDING ALL);");
    }
    pool.query(sql.toString()).execute().await().atMost(timeout);
  }

  /**
   * Folds every rollout of the log with the engine's fold ({@link RolloutFold}, so a rollout whose
   * log cannot be folded reaches the engine's verdict: failed, naming the record) and writes its
   * projection into {@code schema}.
   *
   * @return how many rollouts were written
   */
  public int rebuild(Map<UUID, List<LoggedRecord>> log, String schema) {
    RolloutProgressStore store = new RolloutProgressStore(pool, json, timeout, schema);
    int written = 0;
    for (Map.Entry<UUID, List<LoggedRecord>> entry : log.entrySet()) {
      LoggedPlan.Check check = new LoggedPlan.Check(json);
      RolloutFold.Folded fold = RolloutFold.fold(entry.getKey(), entry.getValue(), check);
      RolloutAppender.logIgnored(entry.getKey(), fold);
      RolloutRun run = fold.run();
      if (run == null || run.created() == null || !run.created().selfContained()) {
        LOG.infof(
            "rollout %s: not rebuilt, its log holds no complete RolloutCreated v2", entry.getKey());
        continue;
      }
      if (fold.verdict() != null) {
        // The engine appends this verdict when it next takes over; the state is the same now.
        run.apply(
            Envelope.of(
                VERDICT_SOURCE,
                run.id().toString(),
                Instant.EPOCH,
                run.term(),
                fold.nextSeq(),
                fold.verdict()));
      }
      boolean awaiting =
          run.status().active()
              && new RolloutDecider(check.rulesOf(LoggedPlan.of(run)).orElseGet(() -> rules(run)))
                  .awaitingPromotion(run);
      store.project(run, fold.folded(), run.drainChanged(), awaiting);
      LoggedRecord first = entry.getValue().getFirst();
      store.logged(run.id(), first.partition(), first.offset());
      written++;
    }
    return written;
  }

  /**
   * The rollouts of {@code log} that {@code schema}'s rollouts table lacks (a database lost and
   * migrated again), with their records.
   */
  public Map<UUID, List<LoggedRecord>> lackedBy(String schema, Map<UUID, List<LoggedRecord>> log) {
    Set<UUID> stored = new java.util.HashSet<>();
    pool.preparedQuery("SELECT id FROM " + schema + ".rollouts WHERE id = ANY($1)")
        .execute(Tuple.tuple().addArrayOfUUID(log.keySet().toArray(UUID[]::new)))
        .await()
        .atMost(timeout)
        .forEach(row -> stored.add(row.getUUID("id")));
    Map<UUID, List<LoggedRecord>> lacked = new java.util.LinkedHashMap<>(log);
    lacked.keySet().removeAll(stored);
    return lacked;
  }

  private RolloutRules rules(RolloutRun run) {
    try {
      return RolloutRules.of(LoggedPlan.read(json, LoggedPlan.of(run)));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(
          "the plan logged with rollout " + run.id() + " does not read", e);
    }
  }

  /**
   * The rows of the rollout tables that only one of the schemas holds (EXCEPT ALL both ways, at
   * most {@code limit} per table), as "table: side row".
   */
  public List<String> differences(String live, String rebuilt, int limit) {
    return differences(live, rebuilt, null, limit);
  }

  /**
   * As {@link #differences(String, String, int)}, for the given rollouts of the log only: a test
   * that checks its own rollout need not rebuild and compare every rollout its application logged.
   */
  public List<String> differences(String live, String rebuilt, Set<UUID> rollouts, int limit) {
    List<String> out = new ArrayList<>();
    Tuple only =
        rollouts == null
            ? Tuple.tuple()
            : Tuple.tuple().addArrayOfUUID(rollouts.toArray(UUID[]::new));
    for (String table : ORDER) {
      out.addAll(
          ProjectionComparison.differences(
              pool,
              table,
              select(live, table, rollouts != null),
              select(rebuilt, table, rollouts != null),
              only,
              limit,
              timeout));
    }
    return out;
  }

  /** The compared columns of the rows of rollouts that are in the log (and in $1 if scoped). */
  private static String select(String schema, String table, boolean scoped) {
    String logged =
        "SELECT r.id FROM "
            + schema
            + ".rollouts r WHERE r.state <> 'created'"
            + (scoped ? " AND r.id = ANY($1)" : "")
            + " AND NOT EXISTS (SELECT 1 FROM "
            + schema
            + ".rollout_event_log e WHERE e.rollout = r.id AND e.event_type ="
            + " 'io.fleetwave.rollout.created.v1') AND EXISTS (SELECT 1 FROM "
            + schema
            + ".rollout_event_log e WHERE e.rollout = r.id AND e.event_type IN"
            + " ('io.fleetwave.rollout.created.v2',"
            + " 'io.fleetwave.rollout.created-in-chunks.v1'))";
    String where = table.equals("rollouts") ? "id" : "rollout";
    return "SELECT "
        + TABLES.get(table)
        + " FROM "
        + schema
        + "."
        + table
        + " WHERE "
        + where
        + " IN ("
        + logged
        + ")";
  }

  /** Row counts of the rollout tables in {@code schema}. */
  public Map<String, Long> rowCounts(String schema) {
    Map<String, Long> counts = new java.util.LinkedHashMap<>();
    for (String table : ORDER) {
      counts.put(
          "rollout:" + table,
          pool.query("SELECT count(*) AS c FROM " + schema + "." + table)
              .execute()
              .await()
              .atMost(timeout)
              .iterator()
              .next()
              .getLong("c"));
    }
    return counts;
  }
}
