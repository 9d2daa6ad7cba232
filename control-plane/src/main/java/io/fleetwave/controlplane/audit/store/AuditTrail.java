package io.fleetwave.controlplane.audit.store;

import io.fleetwave.controlplane.database.Connections;
import io.fleetwave.controlplane.facts.ControlFactLog;
import io.fleetwave.events.fact.AuditRecorded;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Writes the audit log: each entry an {@link AuditRecorded} fact on fleet.control-facts, appended
 * and acknowledged before its row in audit_log (a projection of those facts, {@link AuditFacts}) is
 * written, so a lost database loses no entry.
 */
@ApplicationScoped
public class AuditTrail {
  private final Pool pool;
  private final ControlFactLog facts;

  public AuditTrail(Pool pool, ControlFactLog facts) {
    this.pool = pool;
    this.facts = facts;
  }

  /**
   * Appends one entry in its own transaction.
   *
   * @throws io.fleetwave.controlplane.facts.FactNotRecordedException (failed Uni) when Kafka does
   *     not take it (nothing is written)
   */
  public Uni<Void> append(AuditRecorded entry) {
    return Connections.withTransaction(pool, tx -> append(tx, entry));
  }

  /** Appends one entry in the caller's transaction: the change it audits commits with it. */
  public Uni<Void> append(SqlClient tx, AuditRecorded entry) {
    return facts
        .append(AuditRecorded.SUBJECT, entry, entry.at())
        .chain(fact -> AuditFacts.apply(tx, fact, entry));
  }
}
