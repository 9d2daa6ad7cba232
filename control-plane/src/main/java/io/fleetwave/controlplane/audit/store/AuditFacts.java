package io.fleetwave.controlplane.audit.store;

import io.fleetwave.controlplane.facts.AppliedFacts;
import io.fleetwave.controlplane.facts.FactBackfill;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.fact.AuditRecorded;
import io.fleetwave.events.fact.ControlFact;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.ZoneOffset;
import java.util.List;

/**
 * Applies the {@link AuditRecorded} facts of fleet.control-facts to audit_log, each once: the
 * request that appended it, a replica following the topic and a rebuild all come here. The row's id
 * is PostgreSQL's (the order rows were written); the fact itself is the entry.
 */
public final class AuditFacts {
  private AuditFacts() {}

  /** Applies the entry in the caller's transaction unless it was applied before. */
  public static Uni<Void> apply(SqlClient tx, Envelope<ControlFact> fact, AuditRecorded entry) {
    return AppliedFacts.once(tx, fact.id(), () -> insert(tx, entry));
  }

  /** Up to {@code limit} entries written before they were facts (V34), as their facts. */
  public static Uni<List<FactBackfill>> toBackfill(SqlClient conn, int limit) {
    return FactBackfill.listed(
        conn,
        "audit_log",
        "t.at, t.actor, t.action, t.target, t.status, t.outcome",
        "t.id::text",
        "t.id",
        limit,
        row -> AuditRecorded.SUBJECT,
        row ->
            new AuditRecorded(
                row.getOffsetDateTime("at").toInstant(),
                row.getString("actor"),
                row.getString("action"),
                row.getString("target"),
                row.getInteger("status"),
                row.getString("outcome")));
  }

  private static Uni<Void> insert(SqlClient tx, AuditRecorded entry) {
    return tx.preparedQuery(
            "INSERT INTO audit_log (at, actor, action, target, status, outcome)"
                + " VALUES ($1, $2, $3, $4, $5, $6)")
        .execute(
            Tuple.tuple()
                .addOffsetDateTime(entry.at().atOffset(ZoneOffset.UTC))
                .addString(entry.actor())
                .addString(entry.action())
                .addString(entry.target())
                .addInteger(entry.status())
                .addString(entry.outcome()))
        .replaceWithVoid();
  }
}
