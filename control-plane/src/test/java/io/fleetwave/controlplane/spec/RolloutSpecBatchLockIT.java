package io.fleetwave.controlplane.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.fixtures.FleetNodes;
import io.fleetwave.controlplane.fixtures.FleetNodes.Node;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.NodeSpec;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A rollout spec batch sends its lock and its reads in one round trip: the reads must still see the
 * node's desired spec as it is once the lock is taken. Here a concurrent spec change holds the
 * node's lock and saves generation 1 while the batch for generation 2 waits; the batch must read
 * that generation 1 and publish generation 2 on top of it, not the row as it was before the lock.
 */
@QuarkusTest
class RolloutSpecBatchLockIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final String NODE = "batch-lock-1";

  @Inject Pool pool;
  @Inject SpecService specs;

  @Test
  void theBatchReadsTheSpecAChangeHoldingTheLockSavedBeforeIt() throws Exception {
    FleetNodes.publishAndAwait(
        List.of(new Node(NODE, HostKind.UBUNTU, "z1", "550.127.05", "H100-80GB", 1, Map.of())));
    try (TopicClient topic = new TopicClient()) {
      SqlConnection holder = pool.getConnection().await().atMost(BOUND);
      Transaction change = holder.begin().await().atMost(BOUND);
      Uni<Map<String, String>> batch;
      try {
        // What a spec change of the node does: it takes the node's lock, then saves the spec.
        DesiredSpecs.lockNode(holder, NODE).await().atMost(BOUND);
        holder
            .preparedQuery(
                "INSERT INTO desired_specs (node, generation, spec, updated_at, actor)"
                    + " VALUES ($1, 1, $2, $3, 'it')")
            .execute(
                Tuple.of(
                    NODE,
                    new JsonObject(
                        EventCodec.mapper()
                            .writeValueAsString(
                                new NodeSpec(NODE, 1, null, List.of(), GatePolicy.OPEN))),
                    OffsetDateTime.now(java.time.ZoneOffset.UTC)))
            .await()
            .atMost(BOUND);

        batch =
            specs
                .putAllForRollout(
                    pool,
                    List.of(
                        new RolloutSpecRequest(NODE, new SpecRequest(null, null, List.of()), 2)))
                .memoize()
                .indefinitely();
        batch.subscribe().with(failures -> {}, error -> {});
        await("the batch waiting for the node's spec lock")
            .atMost(BOUND)
            .until(() -> waitingAdvisoryLocks() > 0);
      } finally {
        change.commit().await().atMost(BOUND);
        holder.close().await().atMost(BOUND);
      }

      assertThat(batch.await().atMost(BOUND)).as("nodes the batch refused").isEmpty();
      await("generation 2 of " + NODE + " on " + Topics.NODE_DESIRED)
          .atMost(BOUND)
          .until(() -> topic.lastSpecGeneration(NODE).equals(Optional.of(2L)));
    }
  }

  private static long waitingAdvisoryLocks() {
    return ProjectionRows.count(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
  }
}
