package io.fleetwave.controlplane.rollout.store;

import io.fleetwave.controlplane.database.Connections;
import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.controlplane.facts.ControlFactLog;
import io.fleetwave.core.rollout.decide.RolloutState;
import io.fleetwave.events.fact.OperatorRequested;
import io.fleetwave.events.json.WireNamed;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * The operators' requests on rollouts (pause, resume, abort, rollback, promote), waiting for the
 * engine in rollout_requests: each recorded as an {@link OperatorRequested} fact on
 * fleet.control-facts (acknowledged) before it is queued, so a lost database loses no request.
 */
@ApplicationScoped
public class OperatorRequests {
  private final Pool pool;
  private final ControlFactLog facts;

  public OperatorRequests(Pool pool, ControlFactLog facts) {
    this.pool = pool;
    this.facts = facts;
  }

  /**
   * Queues an operator request for the engine, with who asked ({@code actor}): its id, or empty
   * when there is no such rollout. Fails with IllegalStateException naming the state when the
   * rollout is no longer active.
   *
   * @throws io.fleetwave.controlplane.facts.FactNotRecordedException (failed Uni) when Kafka does
   *     not take the request's fact (nothing is queued)
   */
  public Uni<Optional<UUID>> request(UUID rollout, String action, String reason, String actor) {
    return Connections.withTransaction(
        pool,
        connection ->
            connection
                .preparedQuery("SELECT name, state FROM rollouts WHERE id = $1 FOR SHARE")
                .execute(Tuple.of(rollout))
                .chain(
                    rows -> {
                      if (rows.rowCount() == 0) {
                        return Uni.createFrom().item(Optional.<UUID>empty());
                      }
                      failUnlessActive(rows.iterator().next(), rollout, action);
                      Instant at = Instant.now();
                      OperatorRequested requested =
                          new OperatorRequested(
                              UUID.randomUUID(), rollout, action, reason, actor, at);
                      return facts
                          .append(rollout.toString(), requested, at)
                          .chain(fact -> RequestFacts.requested(connection, fact, requested))
                          .replaceWith(Optional.of(requested.request()));
                    }));
  }

  private static void failUnlessActive(Row row, UUID rollout, String action) {
    RolloutState state = WireNamed.parse(RolloutState.class, row.getString("state"));
    if (!state.active()) {
      throw new IllegalStateException(
          "rollout "
              + row.getString("name")
              + " ("
              + rollout
              + ") is "
              + state.wireName()
              + ": cannot "
              + action
              + " it");
    }
  }

  /** The engine's answer to a request: null while it waits, "done" or "refused: ...". */
  public Uni<String> outcome(UUID request) {
    return pool.preparedQuery("SELECT outcome FROM rollout_requests WHERE id = $1")
        .execute(Tuple.of(request))
        .map(rows -> Rows.first(rows).map(row -> row.getString("outcome")).orElse(null));
  }
}
