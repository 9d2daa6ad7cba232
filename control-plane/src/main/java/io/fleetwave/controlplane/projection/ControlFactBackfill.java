package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.audit.store.AuditFacts;
import io.fleetwave.controlplane.database.Connections;
import io.fleetwave.controlplane.facts.AppliedFacts;
import io.fleetwave.controlplane.facts.ControlFactLog;
import io.fleetwave.controlplane.facts.FactBackfill;
import io.fleetwave.controlplane.mig.store.MigConfigStore;
import io.fleetwave.controlplane.rollout.store.RequestFacts;
import io.fleetwave.controlplane.spec.store.SpecFacts;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

/**
 * Publishes, once, the facts of the rows a database held before their tables were projections of
 * fleet.control-facts (listed in facts_to_backfill by migrations V34 and V41): in chunks, each in
 * one transaction that appends the chunk's facts (acknowledged), marks them applied (the rows are
 * there already) and removes the rows from the list. A fact's id is derived from its row, so a
 * chunk appended again after a failed commit is the same facts, applied once. Runs before this
 * replica's follower reads the topic ({@link ControlFactFollower}); a follower that already reads
 * it waits on the chunk's marks (see {@link #publish}); replicas starting together queue on a lock.
 */
@ApplicationScoped
public class ControlFactBackfill {
  private static final int CHUNK = 500;

  private final Pool pool;
  private final ControlFactLog log;

  public ControlFactBackfill(Pool pool, ControlFactLog log) {
    this.pool = pool;
    this.log = log;
  }

  /**
   * Publishes every listed row's fact within {@code bound}; blocking.
   *
   * @return how many facts it published
   * @throws IllegalStateException naming the bound when rows are still listed after it (they stay
   *     listed for the next start)
   */
  public long run(Duration bound) {
    long deadline = System.nanoTime() + bound.toNanos();
    long published = 0;
    while (true) {
      Duration left = Duration.ofNanos(deadline - System.nanoTime());
      if (left.isNegative() || left.isZero()) {
        throw new IllegalStateException(
            "rows stored before they were facts still listed after "
                + bound.toSeconds()
                + " s ("
                + published
                + " facts published); the next start goes on");
      }
      int chunk = Connections.withTransaction(pool, this::publishChunk).await().atMost(left);
      if (chunk == 0) {
        return published;
      }
      published += chunk;
    }
  }

  /** One chunk of listed rows published; 0 when none is left (what is still listed is gone). */
  private Uni<Integer> publishChunk(SqlClient tx) {
    return tx.query("SELECT pg_advisory_xact_lock(hashtextextended('fact-backfill', 0))")
        .execute()
        .chain(() -> AuditFacts.toBackfill(tx, CHUNK))
        .chain(
            audit ->
                SpecFacts.toBackfill(tx, CHUNK)
                    .map(specs -> Stream.concat(audit.stream(), specs.stream()).toList()))
        .chain(
            some ->
                MigConfigStore.toBackfill(tx, CHUNK)
                    .map(configs -> Stream.concat(some.stream(), configs.stream()).toList()))
        .chain(
            some ->
                RequestFacts.toBackfill(tx, CHUNK)
                    .map(requests -> Stream.concat(some.stream(), requests.stream()).toList()))
        .chain(facts -> facts.isEmpty() ? forgetTheRest(tx) : publish(tx, facts));
  }

  /**
   * Marks the chunk's facts applied before it appends them: a follower already reading the topic (a
   * replica that started first, or a backfill run by hand) that meets one of them waits on the
   * uncommitted mark and then finds it taken, so it never writes the row a second time. Marked
   * after the append, a follower could apply a fact between the acknowledgement and the mark.
   */
  private Uni<Integer> publish(SqlClient tx, List<FactBackfill> facts) {
    return AppliedFacts.firstOf(tx, facts.stream().map(FactBackfill::factId).toList())
        .chain(marked -> log.appendBackfill(facts, Instant.now()))
        .chain(
            appended ->
                tx.preparedQuery(
                        "DELETE FROM facts_to_backfill WHERE (source, row_key) IN"
                            + " (SELECT * FROM unnest($1::text[], $2::text[]))")
                    .execute(
                        Tuple.tuple()
                            .addArrayOfString(
                                facts.stream().map(FactBackfill::source).toArray(String[]::new))
                            .addArrayOfString(
                                facts.stream().map(FactBackfill::rowKey).toArray(String[]::new))))
        .replaceWith(facts.size());
  }

  /** Rows listed but deleted since (none of Fleetwave's tables deletes them today). */
  private static Uni<Integer> forgetTheRest(SqlClient tx) {
    return tx.query("DELETE FROM facts_to_backfill").execute().replaceWith(0);
  }
}
