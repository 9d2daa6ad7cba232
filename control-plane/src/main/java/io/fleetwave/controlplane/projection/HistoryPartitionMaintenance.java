package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.config.ProjectionConfig;
import io.fleetwave.controlplane.database.Connections;
import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.core.projection.HistoryPartitionPlan;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Creates the node history's day partitions ahead and drops those past the retention (the {@link
 * HistoryPartitionPlan}), on a schedule and once at start. Old history goes a partition at a time:
 * a DROP TABLE, no row deletes, no bloat, no vacuum debt. Only events the default partition caught
 * (times outside every day partition) are moved or deleted row by row.
 *
 * <p>Every replica runs it: one transaction under a transaction-level advisory lock, so a replica
 * that finds another at it skips the run, and each run recomputes the plan from the catalogue, so
 * running it again changes nothing. DDL waits at most {@link #LOCK_TIMEOUT} for its locks (a long
 * query on the history); a run that gives up is tried again at the next interval.
 */
@ApplicationScoped
public class HistoryPartitionMaintenance {
  /** "Fleethis": distinct from the rollout engine's leader lock. */
  static final long LOCK_KEY = 0x466c656574686973L;

  private static final Logger LOG = Logger.getLogger(HistoryPartitionMaintenance.class);
  private static final String LOCK_TIMEOUT = "10s";
  private static final String PARENT = "public.node_events";
  private static final String DEFAULT = "public.node_events_default";

  private final Pool pool;
  private final Duration retention;
  private final Duration ahead;

  /** What a run did; {@code ran} is false when another replica held the lock. */
  public record Outcome(
      boolean ran, List<String> created, List<String> dropped, long movedFromDefault) {}

  @Inject
  public HistoryPartitionMaintenance(Pool pool, ProjectionConfig config) {
    this(pool, config.history().retention(), config.history().ahead());
  }

  HistoryPartitionMaintenance(Pool pool, Duration retention, Duration ahead) {
    this.pool = pool;
    this.retention = retention;
    this.ahead = ahead;
  }

  @Scheduled(
      identity = "history-partitions",
      every = "${fleetwave.projection.history.maintenance-interval:1h}",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
  Uni<Void> onSchedule() {
    return maintain(Instant.now())
        .invoke(
            outcome -> {
              if (!outcome.created().isEmpty() || !outcome.dropped().isEmpty()) {
                LOG.infof(
                    "node history partitions: created %s, dropped %s (retention %s)",
                    outcome.created(), outcome.dropped(), retention);
              }
            })
        .onFailure()
        .recoverWithItem(
            failure -> {
              LOG.warnf(
                  "node history partitions not maintained (tried again in the next interval): %s",
                  failure.getMessage());
              return null;
            })
        .replaceWithVoid();
  }

  /** One run as of {@code now}: creates and drops what the plan says, in one transaction. */
  public Uni<Outcome> maintain(Instant now) {
    return Connections.withTransaction(
        pool,
        conn ->
            conn.query("SET LOCAL lock_timeout = '" + LOCK_TIMEOUT + "'")
                .execute()
                .chain(
                    () ->
                        conn.preparedQuery("SELECT pg_try_advisory_xact_lock($1) AS held")
                            .execute(Tuple.of(LOCK_KEY)))
                .chain(
                    rows ->
                        rows.iterator().next().getBoolean("held")
                            ? plan(conn, now)
                                .call(plan -> carry(conn, plan.keptFrom()))
                                .chain(plan -> apply(conn, plan))
                            : Uni.createFrom().item(new Outcome(false, List.of(), List.of(), 0))));
  }

  private Uni<HistoryPartitionPlan> plan(SqlConnection conn, Instant now) {
    Uni<List<String>> existing =
        conn.query(
                "SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                    + " WHERE i.inhparent = '"
                    + PARENT
                    + "'::regclass")
            .execute()
            .map(rows -> Rows.each(rows, row -> row.getString("name")));
    Uni<List<LocalDate>> daysInDefault =
        conn.query("SELECT DISTINCT (event_time AT TIME ZONE 'UTC')::date AS day FROM " + DEFAULT)
            .execute()
            .map(rows -> Rows.each(rows, row -> row.getLocalDate("day")));
    return existing.chain(
        names ->
            daysInDefault.map(days -> HistoryPartitionPlan.at(now, retention, ahead, names, days)));
  }

  private static Uni<Outcome> apply(SqlConnection conn, HistoryPartitionPlan plan) {
    long[] moved = new long[1];
    List<String> created = new ArrayList<>();
    return Multi.createFrom()
        .iterable(plan.create())
        .onItem()
        .transformToUniAndConcatenate(
            day ->
                create(conn, day)
                    .invoke(
                        rows -> {
                          moved[0] += rows;
                          created.add(HistoryPartitionPlan.name(day));
                        }))
        .collect()
        .last()
        .chain(
            () ->
                Multi.createFrom()
                    .iterable(plan.drop())
                    .onItem()
                    .transformToUniAndConcatenate(
                        name -> conn.query("DROP TABLE public." + name).execute())
                    .collect()
                    .last())
        // Events the default partition caught that are as old as dropped history go with it.
        .chain(
            () ->
                conn.preparedQuery("DELETE FROM " + DEFAULT + " WHERE event_time < $1")
                    .execute(Tuple.of(plan.keptFrom().atOffset(ZoneOffset.UTC))))
        .map(ignored -> new Outcome(true, created, plan.drop(), moved[0]));
  }

  /**
   * Keeps in node_history_base (V35) what as-of reads need of the history about to go (every event
   * before {@code keptFrom}: the day partitions dropped next and the default partition's old rows):
   * each node's newest registration and newest inventory, and its other events (progress: the
   * reconcile state is their fold); older registrations and inventories kept before are dropped,
   * and so are the older rows of registration_history and inventory_history (V42) and the changes
   * found in the history about to go ({@link #pruneChanges}).
   */
  private static Uni<Void> carry(SqlConnection conn, Instant keptFrom) {
    Tuple params =
        Tuple.tuple()
            .addOffsetDateTime(keptFrom.atOffset(ZoneOffset.UTC))
            .addArrayOfString(new String[] {NodeHistory.REGISTERED, NodeHistory.INVENTORY});
    return conn.preparedQuery(
            "INSERT INTO node_history_base (node, epoch, seq, event_id, event_type, event_time,"
                + " payload) SELECT node, epoch, seq, event_id, event_type, event_time, payload"
                + " FROM (SELECT DISTINCT ON (node, event_type) * FROM "
                + PARENT
                + " WHERE event_time < $1 AND event_type = ANY($2)"
                + " ORDER BY node, event_type, epoch DESC, seq DESC) newest"
                + " UNION ALL SELECT node, epoch, seq, event_id, event_type, event_time, payload"
                + " FROM "
                + PARENT
                + " WHERE event_time < $1 AND event_type <> ALL($2)"
                + " ON CONFLICT (node, epoch, seq) DO NOTHING")
        .execute(params)
        .chain(
            () ->
                conn.preparedQuery(
                        "DELETE FROM node_history_base b USING node_history_base n"
                            + " WHERE b.event_type = ANY($1) AND n.node = b.node"
                            + " AND n.event_type = b.event_type"
                            + " AND (n.epoch, n.seq) > (b.epoch, b.seq)")
                    .execute(
                        Tuple.tuple()
                            .addArrayOfString(
                                new String[] {NodeHistory.REGISTERED, NodeHistory.INVENTORY})))
        .call(() -> prune(conn, "registration_history", params))
        .call(() -> prune(conn, "inventory_history", params))
        .call(() -> pruneChanges(conn, params))
        .replaceWithVoid();
  }

  /**
   * Deletes the observed changes (node_changes, V40) older than {@code keptFrom} (the first
   * parameter), as the history they were found in goes: without it they were kept as long as their
   * node, and grew with every change a fleet reports. Kept: the changes of each node's open driver
   * run (node_provenance's unexplained driver run, V44, from its first change on), which the drift
   * view still reads to attribute (a spec may have asked for that version). The other aspects' runs
   * keep what the drift view needs of them in node_provenance itself.
   */
  private static Uni<Void> pruneChanges(SqlConnection conn, Tuple params) {
    return conn.preparedQuery(
            "DELETE FROM node_changes c WHERE c.event_time < $1 AND NOT EXISTS (SELECT 1 FROM"
                + " node_provenance p WHERE p.node = c.node AND c.aspect = 'driver'"
                + " AND p.unexplained ? 'driver' AND (c.epoch, c.seq)"
                + " >= ((p.unexplained -> 'driver' ->> 'epoch')::bigint,"
                + " (p.unexplained -> 'driver' ->> 'seq')::bigint))")
        .execute(Tuple.of(params.getValue(0)))
        .invoke(
            rows -> {
              if (rows.rowCount() > 0) {
                LOG.infof(
                    "observed changes: deleted %d seen before %s (the history kept)",
                    rows.rowCount(), params.getValue(0));
              }
            })
        .replaceWithVoid();
  }

  /**
   * Deletes the rows of {@code table} (V42: the history's registrations or inventories as columns)
   * older than {@code keptFrom} (the first parameter) but each node's newest of them: the state the
   * node had at the oldest kept moment, from which as-of reads start, as node_history_base keeps it
   * of the history.
   */
  private static Uni<Void> prune(SqlConnection conn, String table, Tuple params) {
    return conn.preparedQuery(
            "DELETE FROM "
                + table
                + " t WHERE t.event_time < $1 AND EXISTS (SELECT 1 FROM "
                + table
                + " n WHERE n.node = t.node AND n.event_time < $1"
                + " AND (n.epoch, n.seq) > (t.epoch, t.seq))")
        .execute(Tuple.of(params.getValue(0)))
        .replaceWithVoid();
  }

  /**
   * A day partition: created detached, given the default partition's events of its day, then
   * attached (CREATE ... PARTITION OF would fail while the default partition holds such events).
   *
   * @return how many events moved from the default partition
   */
  private static Uni<Integer> create(SqlConnection conn, LocalDate day) {
    String name = "public." + HistoryPartitionPlan.name(day);
    Instant from = HistoryPartitionPlan.start(day);
    Instant to = HistoryPartitionPlan.start(day.plusDays(1));
    return conn.query(
            "CREATE TABLE "
                + name
                + " (LIKE "
                + PARENT
                + " INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
        .execute()
        .chain(
            () ->
                conn.preparedQuery(
                        "WITH moved AS (DELETE FROM "
                            + DEFAULT
                            + " WHERE event_time >= $1 AND event_time < $2 RETURNING *)"
                            + " INSERT INTO "
                            + name
                            + " SELECT * FROM moved")
                    .execute(Tuple.of(from.atOffset(ZoneOffset.UTC), to.atOffset(ZoneOffset.UTC))))
        .call(
            () ->
                conn.query(
                        "ALTER TABLE "
                            + PARENT
                            + " ATTACH PARTITION "
                            + name
                            + " FOR VALUES FROM ('"
                            + from
                            + "') TO ('"
                            + to
                            + "')")
                    .execute())
        .map(rows -> rows.rowCount());
  }
}
