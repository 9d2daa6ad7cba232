package io.fleetwave.controlplane.facts;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The ids of the facts the tables hold (applied_facts), written in the transaction that applies the
 * fact: the request that appended it, a replica following the topic and a rebuild each apply it,
 * and only the first changes anything. Replaying facts already applied is then harmless even where
 * applying one again would not be (a revocation replayed after the re-admission that ended it).
 */
public final class AppliedFacts {
  private AppliedFacts() {}

  /** Marks the fact applied; true when this is the first time, so the caller applies it. */
  public static Uni<Boolean> first(SqlClient tx, String factId) {
    return tx.preparedQuery("INSERT INTO applied_facts (id) VALUES ($1) ON CONFLICT DO NOTHING")
        .execute(Tuple.of(factId))
        .map(rows -> rows.rowCount() == 1);
  }
}
