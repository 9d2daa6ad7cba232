package io.fleetwave.controlplane.rollout.store;

import io.fleetwave.controlplane.facts.AppliedFacts;
import io.fleetwave.controlplane.facts.FactBackfill;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.fact.ControlFact;
import io.fleetwave.events.fact.OperatorRequestHandled;
import io.fleetwave.events.fact.OperatorRequested;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * rollout_requests as the projection of the operators' requests on fleet.control-facts: an {@link
 * OperatorRequested} inserts the request, pending; an {@link OperatorRequestHandled} stores the
 * engine's answer. Each is applied once: the API call or the engine that appended it, a replica
 * following the topic and a rebuild all come here. Each signals as the first write did (on commit,
 * on every replica), so an engine wakes for a request and a waiting call reads its answer whoever
 * applied it.
 */
public final class RequestFacts {
  private static final String SOURCE = "rollout_requests";
  private static final String ANSWER = "handled";

  private RequestFacts() {}

  /** Inserts the request, pending, in the caller's transaction unless it was applied before. */
  public static Uni<Void> requested(
      SqlClient tx, Envelope<ControlFact> fact, OperatorRequested request) {
    return AppliedFacts.once(tx, fact.id(), () -> insert(tx, request));
  }

  /**
   * Stores the answer in the caller's transaction unless it was applied before. A request is
   * answered once: a second answer (an engine that lost its lead and answered it again) leaves the
   * first.
   */
  public static Uni<Void> handled(
      SqlClient tx, Envelope<ControlFact> fact, OperatorRequestHandled handled) {
    return AppliedFacts.once(tx, fact.id(), () -> answer(tx, handled));
  }

  /**
   * Up to {@code limit} requests stored before they were facts (V41), oldest first, each as its
   * OperatorRequested followed by its OperatorRequestHandled where it was answered: one chunk holds
   * both, in that order, so the answer is never applied before its request.
   */
  public static Uni<List<FactBackfill>> toBackfill(SqlClient conn, int limit) {
    return conn.preparedQuery(
            "SELECT b.row_key, t.id, t.rollout, t.action, t.reason, t.actor, t.requested_at,"
                + " t.handled_at, t.outcome FROM facts_to_backfill b JOIN rollout_requests t ON"
                + " b.row_key = t.id::text WHERE b.source = $1 ORDER BY t.requested_at, t.id"
                + " LIMIT $2")
        .execute(Tuple.of(SOURCE, limit))
        .map(
            rows -> {
              List<FactBackfill> facts = new ArrayList<>();
              for (Row row : rows) {
                String key = row.getString("row_key");
                String subject = row.getUUID("rollout").toString();
                facts.add(new FactBackfill(SOURCE, key, subject, requestOf(row)));
                if (row.getValue("handled_at") != null) {
                  facts.add(new FactBackfill(SOURCE, key, subject, answerOf(row), ANSWER));
                }
              }
              return facts;
            });
  }

  private static OperatorRequested requestOf(Row row) {
    return new OperatorRequested(
        row.getUUID("id"),
        row.getUUID("rollout"),
        row.getString("action"),
        row.getString("reason"),
        row.getString("actor"),
        row.getOffsetDateTime("requested_at").toInstant());
  }

  private static OperatorRequestHandled answerOf(Row row) {
    return new OperatorRequestHandled(
        row.getUUID("id"),
        row.getString("outcome"),
        row.getOffsetDateTime("handled_at").toInstant());
  }

  private static Uni<Void> insert(SqlClient tx, OperatorRequested request) {
    return tx.preparedQuery(
            "INSERT INTO rollout_requests (id, rollout, action, reason, actor, requested_at)"
                + " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING")
        .execute(
            Tuple.tuple()
                .addUUID(request.request())
                .addUUID(request.rollout())
                .addString(request.action())
                .addString(request.reason())
                .addString(request.actor())
                .addOffsetDateTime(request.at().atOffset(ZoneOffset.UTC)))
        .chain(() -> RolloutSignals.notify(tx, RolloutSignals.QUEUED));
  }

  private static Uni<Void> answer(SqlClient tx, OperatorRequestHandled handled) {
    return tx.preparedQuery(
            "UPDATE rollout_requests SET handled_at = $2, outcome = $3 WHERE id = $1"
                + " AND handled_at IS NULL")
        .execute(
            Tuple.of(handled.request(), handled.at().atOffset(ZoneOffset.UTC), handled.outcome()))
        .chain(() -> RolloutSignals.notify(tx, RolloutSignals.answered(handled.request())));
  }
}
