package io.fleetwave.controlplane.database;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class DatabaseFailuresTest {
  private static PgException pg(String sqlState, String message) {
    return new PgException(message, "ERROR", sqlState, null);
  }

  @Test
  void dataExceptionsConstraintViolationsAndLimitsAreRefusals() {
    for (String state : new String[] {"22021", "22P05", "22001", "23505", "23503", "54000"}) {
      assertThat(DatabaseFailures.refusal(pg(state, "refused"))).as(state).isPresent();
      assertThat(DatabaseFailures.unavailable(pg(state, "refused"))).as(state).isFalse();
    }
  }

  @Test
  void aRefusalIsFoundUnderWrappers() {
    assertThat(
            DatabaseFailures.refusal(
                new CompletionException(new RuntimeException(pg("23505", "duplicate key")))))
        .map(PgException::getSqlState)
        .hasValue("23505");
  }

  @Test
  void aDatabaseThatCannotRunTheWorkIsNoRefusal() {
    for (String state :
        new String[] {"57P01", "57P03", "08006", "53300", "40001", "40P01", "42P01"}) {
      assertThat(DatabaseFailures.refusal(pg(state, "not now"))).as(state).isEmpty();
    }
    assertThat(DatabaseFailures.refusal(ClosedConnectionException.INSTANCE)).isEmpty();
    assertThat(DatabaseFailures.refusal(new ConnectException("Connection refused"))).isEmpty();
  }

  @Test
  void unreachableShuttingDownOrCutIsUnavailable() {
    assertThat(DatabaseFailures.unavailable(pg("57P01", "terminating connection"))).isTrue();
    assertThat(DatabaseFailures.unavailable(pg("08006", "connection failure"))).isTrue();
    assertThat(DatabaseFailures.unavailable(pg("53300", "too many connections"))).isTrue();
    assertThat(DatabaseFailures.unavailable(ClosedConnectionException.INSTANCE)).isTrue();
    // What the client answers on a connection it closed (its NoStackTraceThrowable, seen in the
    // system tier's database outage, where the engine had logged it as an error).
    assertThat(
            DatabaseFailures.unavailable(
                new CompletionException(
                    new RuntimeException("Connection is not active now, current status: CLOSED"))))
        .isTrue();
    assertThat(
            DatabaseFailures.unavailable(
                new CompletionException(new ConnectException("Connection refused"))))
        .isTrue();
    assertThat(DatabaseFailures.unavailable(pg("42P01", "relation does not exist"))).isFalse();
    assertThat(DatabaseFailures.unavailable(new IllegalStateException("a bug"))).isFalse();
  }

  @Test
  void aRefusalIsDescribedWithItsSqlStateMessageAndDetail() {
    PgException e =
        new PgException(
            "duplicate key value violates unique constraint \"gpus_pkey\"",
            "ERROR",
            "23505",
            "Key (node, gpu_index)=(n-1, 0) already exists.");
    assertThat(DatabaseFailures.describe(e))
        .isEqualTo(
            "SQLSTATE 23505: duplicate key value violates unique constraint \"gpus_pkey\""
                + " (Key (node, gpu_index)=(n-1, 0) already exists.)");
  }

  @Test
  void aRowRoutedBeforeAConcurrentAttachIsTriedAgainNotRefused() {
    PgException partitionMoved =
        error(
            "new row for relation \"node_events_default\" violates partition constraint",
            "23514",
            null);
    PgException checkViolated =
        error(
            "new row for relation \"rollouts\" violates check constraint \"rollouts_state_check\"",
            "23514",
            "rollouts_state_check");

    assertThat(DatabaseFailures.refusal(partitionMoved)).isEmpty();
    assertThat(DatabaseFailures.refusal(checkViolated)).contains(checkViolated);
  }

  /** An error as the server reports it, with the table and the constraint it names (if any). */
  private static PgException error(String message, String sqlState, String constraint) {
    return new PgException(
        message,
        "ERROR",
        sqlState,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        "public",
        null,
        null,
        null,
        constraint);
  }
}
