package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageRequest;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/** Reads of a node's event history, newest first. */
@ApplicationScoped
public class HistoryQueries {
  private final Pool pool;

  public HistoryQueries(Pool pool) {
    this.pool = pool;
  }

  public Uni<Page<NodeEventView>> events(String node, PageRequest paging) {
    Uni<Long> total =
        pool.preparedQuery("SELECT count(*) AS total FROM node_events WHERE node = $1")
            .execute(Tuple.of(node))
            .map(rows -> rows.iterator().next().getLong("total"));
    Uni<List<NodeEventView>> items =
        pool.preparedQuery(
                "SELECT event_id, event_type, epoch, seq, event_time, payload FROM node_events"
                    + " WHERE node = $1 ORDER BY epoch DESC, seq DESC LIMIT $2 OFFSET $3")
            .execute(Tuple.of(node, paging.size(), paging.offset()))
            .map(rows -> Rows.each(rows, HistoryQueries::view));
    return Uni.combine()
        .all()
        .unis(items, total)
        .with((events, count) -> new Page<>(events, paging.page(), paging.size(), count));
  }

  private static NodeEventView view(Row row) {
    // Stored as the node sent it (text, V25), decoded by the projection before it was stored.
    JsonObject payload = new JsonObject(row.getString("payload"));
    return new NodeEventView(
        row.getString("event_id"),
        row.getString("event_type"),
        row.getLong("epoch"),
        row.getLong("seq"),
        row.getOffsetDateTime("event_time").toInstant(),
        payload.getMap());
  }
}
