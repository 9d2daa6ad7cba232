package io.fleetwave.controlplane.rollout.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.fixtures.EngineTakeovers;
import io.fleetwave.controlplane.fixtures.LoggedRollouts;
import io.fleetwave.controlplane.fixtures.RunsLast;
import io.fleetwave.controlplane.rollout.store.OperatorRequests;
import io.fleetwave.controlplane.rollout.store.RolloutStore;
import io.fleetwave.core.rollout.decide.LoggedRecord;
import io.fleetwave.core.rollout.plan.LargeFleetPlans;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.RolloutChunks;
import io.fleetwave.events.rollout.RolloutCreatedInChunks;
import io.fleetwave.events.rollout.RolloutEvent;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A rollout too large for one record ({@code -Dscale.largeRollout.nodes}, 20,000 planned nodes)
 * against the real embedded Kafka with its default limits: its creation is logged in chunks, each
 * record below {@code max.message.bytes}; an engine takes it over, the rebuild folds it to the same
 * rows, and a creation cut between its chunks (a leader that stopped there) is logged again and
 * folds once.
 *
 * <p>20,000 nodes, not the 100,000 this test ran with until 2026-12-04: a chunk's bound does not
 * depend on the plan's size, so every assertion holds alike from a few thousand nodes (a creation
 * in several chunks) up; {@code RolloutCreatedSizeTest} checks a creation's chunks without a broker
 * ({@code -Dscale.rolloutCreated.nodes=100000} at 100,000 nodes), and {@code
 * -Dscale.largeRollout.nodes=100000} runs this test at that size (233 s against 40 s at 20,000,
 * back to back on a loaded two-core machine; see docs/suite-time.md).
 *
 * <p>Runs after the other tests of its application (OrderThenClassName): its rollout stays in the
 * shared log, and the tests that fold every rollout would fold it again.
 */
@QuarkusTest
@RunsLast
class LargeRolloutIT {
  private static final Duration BOUND = Duration.ofSeconds(120);
  private static final int NODES = Integer.getInteger("scale.largeRollout.nodes", 20_000);

  /** Kafka's default {@code max.message.bytes}. */
  private static final int KAFKA_DEFAULT_LIMIT = 1_048_588;

  @Inject Pool pool;
  @Inject ObjectMapper json;
  @Inject LoggedRollouts rollouts;
  @Inject RolloutEngines engines;
  @Inject OperatorRequests requests;

  @Test
  void aRolloutTooLargeForOneRecordIsLoggedInChunksTakenOverAndRebuilt() {
    UUID id = store("huge", NODES);
    try {
      await("the engine logs the rollout").atMost(BOUND).until(() -> !state(id).equals("created"));

      List<LoggedRecord> records;
      try (RolloutLog log = rollouts.open(BOUND)) {
        records = log.readAll().get(id);
      }
      assertThat(records.getFirst().envelope().data()).isInstanceOf(RolloutCreatedInChunks.class);
      int chunks = ((RolloutCreatedInChunks) records.getFirst().envelope().data()).chunks();
      assertThat(chunks).isGreaterThan(1);
      assertThat(records).allSatisfy(r -> assertThat(r.bytes()).isLessThan(KAFKA_DEFAULT_LIMIT));
      System.out.printf(
          "RolloutCreated of %,d nodes: a header and %d chunks, the largest record %d bytes%n",
          NODES, chunks, records.stream().mapToInt(LoggedRecord::bytes).max().orElseThrow());

      RolloutEngine successor = EngineTakeovers.takeOver(engines, BOUND);

      System.out.printf(
          "takeover of the %,d-node rollout: %d ms%n", NODES, successor.lastTakeOver().toMillis());
      assertThat(state(id)).isIn("running", "paused");
      assertThat(count("SELECT count(*) FROM rollout_node_states WHERE rollout = $1", id))
          .isEqualTo(NODES);
    } finally {
      abort(id);
    }
    assertRebuildEqualsLive(id, "large_rollout_it");
  }

  @Test
  void aCreationCutBetweenItsChunksIsLoggedAgainAndFoldsOnce() throws Exception {
    engines.stopEngine();
    UUID id;
    try {
      id = store("cut", 5_000);
      // What a leader that stopped after the header and two chunks left in the log.
      RolloutProgressStore.Creation creation =
          new RolloutProgressStore(pool, json, BOUND).creation(id);
      List<RolloutEvent> chunked = RolloutChunks.of(RolloutBook.creation(json, "cut", creation));
      assertThat(chunked).hasSizeGreaterThan(3);
      List<Envelope<RolloutEvent>> cut =
          RolloutLog.envelopes(id, 0, 0, chunked.subList(0, 3), creation.createdAt());
      try (RolloutLog log = rollouts.open(BOUND)) {
        log.append(cut);
      }
    } finally {
      EngineTakeovers.takeOver(engines, BOUND);
    }
    try {
      await("the engine logs the rollout again")
          .atMost(BOUND)
          .until(() -> !state(id).equals("created"));
      assertThat(count("SELECT count(*) FROM rollout_node_states WHERE rollout = $1", id))
          .isEqualTo(5_000);
    } finally {
      abort(id);
    }
    assertRebuildEqualsLive(id, "cut_rollout_it");
  }

  /**
   * The rollout's rebuild from the log equals its live rows. Its own rollout only: the log of this
   * application holds a thousand rollouts of other tests, whose rebuild is theirs to check.
   */
  private void assertRebuildEqualsLive(UUID id, String schema) {
    RolloutRebuild rebuild = rollouts.rebuild(BOUND);
    rebuild.recreate(schema);
    try (RolloutLog log = rollouts.open(BOUND)) {
      assertThat(rebuild.rebuild(Map.of(id, log.readAll().get(id)), schema)).isEqualTo(1);
    }
    assertThat(rebuild.differences("public", schema, Set.of(id), 20)).isEmpty();
  }

  /** Stores the rollout as the API does (state created, its plan from the real planner). */
  private UUID store(String prefix, int nodes) {
    return new RolloutStore(pool, json)
        .create(LargeFleetPlans.spec(prefix), LargeFleetPlans.plan(prefix, nodes, 1), "test-admin")
        .await()
        .atMost(BOUND)
        .id();
  }

  /** Aborts the rollout (if still active) and waits until the engine did. */
  private void abort(UUID id) {
    if (List.of("aborted", "failed", "completed").contains(state(id))) {
      return;
    }
    requests.request(id, "abort", "done", "test-admin").await().atMost(BOUND);
    await("rollout " + id + " is aborted").atMost(BOUND).until(() -> state(id).equals("aborted"));
  }

  private String state(UUID id) {
    return onlyRow("SELECT state FROM rollouts WHERE id = $1", id).getString("state");
  }

  private long count(String sql, UUID id) {
    return onlyRow(sql.replace("count(*)", "count(*) AS n"), id).getLong("n");
  }

  /** The one row the query with the rollout's id as its parameter answers. */
  private Row onlyRow(String sql, UUID id) {
    return pool.preparedQuery(sql).execute(Tuple.of(id)).await().atMost(BOUND).iterator().next();
  }
}
