package io.fleetwave.controlplane.rollout.store;

import static io.fleetwave.controlplane.fixtures.MigratedDatabase.texts;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.fixtures.MigratedDatabase;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.testsupport.services.PostgresExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Upgrading a database whose rollout_requests were numbered by a sequence (V4): V41 keeps every
 * request, handled or pending, under a UUID of its own, and lists each for the backfill that
 * publishes its facts; a request on a rollout the table lacks is no longer refused (the rebuild
 * restores requests and rollouts from two topics, in no set order).
 */
@ExtendWith(PostgresExtension.class)
class RolloutRequestsMigrationIT {
  EmbeddedPostgres postgres;

  @Test
  void requestsStoredBeforeV41KeepTheirRowsUnderUuidsAndAreListedForTheBackfill() throws Exception {
    String url = MigratedDatabase.create(postgres, "requests");
    MigratedDatabase.migrate(url, "40");
    UUID rollout = UUID.randomUUID();
    execute(
        url,
        "INSERT INTO rollouts (id, name, spec, plan, state, created_by) VALUES ('"
            + rollout
            + "', 'old', '{}', '{}', 'running', 'alice');"
            + "INSERT INTO rollout_requests (rollout, action, reason, actor, handled_at, outcome)"
            + " VALUES ('"
            + rollout
            + "', 'pause', 'look', 'alice', now(), 'done');"
            + "INSERT INTO rollout_requests (rollout, action, actor) VALUES ('"
            + rollout
            + "', 'resume', 'bob')");

    MigratedDatabase.migrate(url, "latest");

    // A request not handled yet has no outcome: the pending one.
    assertThat(
            texts(
                url,
                "SELECT action || ' by ' || actor || ': ' || coalesce(outcome, 'pending')"
                    + " FROM rollout_requests ORDER BY action"))
        .containsExactly("pause by alice: done", "resume by bob: pending");
    assertThat(
            texts(
                url,
                "SELECT b.source FROM facts_to_backfill b JOIN rollout_requests r"
                    + " ON b.row_key = r.id::text"))
        .containsExactly("rollout_requests", "rollout_requests");
    execute(
        url,
        "INSERT INTO rollout_requests (id, rollout, action, actor) VALUES ('"
            + UUID.randomUUID()
            + "', '"
            + UUID.randomUUID()
            + "', 'abort', 'carol')");
  }

  private static void execute(String url, String sql) throws Exception {
    try (Connection db = MigratedDatabase.connect(url);
        Statement statement = db.createStatement()) {
      statement.execute(sql);
    }
  }
}
