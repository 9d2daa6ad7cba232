package io.fleetwave.controlplane.facts;

import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.events.fact.ControlFact;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

/**
 * A row written before its table was a projection of facts (listed in facts_to_backfill when the
 * database was migrated), and the fact that stands for it. The fact's id is derived from the row,
 * so publishing it again (a start that failed after the append) yields the same fact, applied once.
 *
 * @param source the table
 * @param rowKey the row's key in it, as facts_to_backfill lists it
 * @param subject what the fact is about (its record key)
 * @param part which of the row's facts this is, where a row stands for more than one (a request and
 *     its answer); null for a row's only fact
 */
public record FactBackfill(
    String source, String rowKey, String subject, ControlFact fact, String part) {
  /** The only fact of its row. */
  public FactBackfill(String source, String rowKey, String subject, ControlFact fact) {
    this(source, rowKey, subject, fact, null);
  }

  public String factId() {
    String row = "backfill:" + source + ":" + rowKey + (part == null ? "" : "#" + part);
    return UUID.nameUUIDFromBytes(row.getBytes(StandardCharsets.UTF_8)).toString();
  }

  /**
   * Up to {@code limit} rows of the table {@code source} that facts_to_backfill lists (joined on
   * {@code key}, an expression of the row {@code t}), in {@code order}, each with its fact.
   *
   * @param columns what {@code subject} and {@code fact} read of the row ({@code t.}...)
   */
  public static Uni<List<FactBackfill>> listed(
      SqlClient conn,
      String source,
      String columns,
      String key,
      String order,
      int limit,
      Function<Row, String> subject,
      Function<Row, ControlFact> fact) {
    return conn.preparedQuery(
            "SELECT b.row_key, "
                + columns
                + " FROM facts_to_backfill b JOIN "
                + source
                + " t ON b.row_key = "
                + key
                + " WHERE b.source = $1 ORDER BY "
                + order
                + " LIMIT $2")
        .execute(Tuple.of(source, limit))
        .map(
            rows ->
                Rows.each(
                    rows,
                    row ->
                        new FactBackfill(
                            source,
                            row.getString("row_key"),
                            subject.apply(row),
                            fact.apply(row))));
  }
}
