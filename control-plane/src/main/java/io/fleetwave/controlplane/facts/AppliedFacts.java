package io.fleetwave.controlplane.facts;

import io.fleetwave.controlplane.database.Rows;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

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

  /** Marks the fact applied and, the first time only, applies it with {@code apply}. */
  public static Uni<Void> once(SqlClient tx, String factId, Supplier<Uni<Void>> apply) {
    return first(tx, factId).chain(first -> first ? apply.get() : Uni.createFrom().voidItem());
  }

  /**
   * Marks the facts applied; the ids of those applied for the first time, which the caller applies.
   */
  public static Uni<Set<String>> firstOf(SqlClient tx, List<String> factIds) {
    return tx.preparedQuery(
            "INSERT INTO applied_facts (id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING"
                + " RETURNING id")
        .execute(Tuple.tuple().addArrayOfString(factIds.toArray(String[]::new)))
        .map(rows -> new HashSet<>(Rows.each(rows, row -> row.getString("id"))));
  }
}
