package io.fleetwave.controlplane.rollout.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.readmodel.FleetSnapshotReader;
import io.fleetwave.controlplane.rollout.store.OperatorRequests;
import io.fleetwave.controlplane.rollout.store.RolloutStore;
import io.fleetwave.core.rollout.decide.RolloutState;
import io.fleetwave.core.rollout.plan.LargeFleetPlans;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Planning a rollout takes CPU seconds at 100,000 nodes, and answering its creation builds the plan
 * as shown (up to a few hundred KB of JSON for a complete one): both happen off the event loop
 * their database reads complete on, which also serves the API and the projection.
 */
@QuarkusTest
class RolloutCreationOffTheEventLoopIT {
  private static final Duration BOUND = Duration.ofSeconds(60);

  @Inject FleetSnapshotReader fleet;
  @Inject RolloutPlanning planning;
  @Inject RolloutStore store;
  @Inject OperatorRequests requests;
  @Inject Vertx vertx;

  @Test
  void theFleetsRowsAreReadIntoNodesOffTheEventLoop() throws Exception {
    boolean onEventLoop =
        fromEventLoop(() -> fleet.snapshot().map(snapshot -> Context.isOnEventLoopThread()));

    assertThat(onEventLoop).as("the rows were read into nodes on an event loop").isFalse();
  }

  @Test
  void aPlanIsMadeOffTheEventLoopItsReadsCompletedOn() throws Exception {
    boolean onEventLoop =
        fromEventLoop(
            () ->
                planning
                    .plan(LargeFleetPlans.spec("off-loop-plan"))
                    .map(plan -> Context.isOnEventLoopThread()));

    assertThat(onEventLoop).as("the planner ran on an event loop").isFalse();
  }

  @Test
  void aCreatedRolloutIsAnsweredOffTheEventLoopItsTransactionCompletedOn() throws Exception {
    UUID[] id = new UUID[1];
    boolean onEventLoop =
        fromEventLoop(
            () ->
                store
                    .create(
                        LargeFleetPlans.spec("off-loop-store"),
                        LargeFleetPlans.plan("off-loop-store", 3, 1),
                        "test-admin")
                    .map(
                        stored -> {
                          id[0] = stored.id();
                          return Context.isOnEventLoopThread();
                        }));
    try {
      assertThat(onEventLoop).as("the answer was built on an event loop").isFalse();
    } finally {
      requests.request(id[0], "abort", "done", "test-admin").await().atMost(BOUND);
      await("rollout " + id[0] + " is aborted")
          .atMost(BOUND)
          .until(
              () ->
                  store
                      .state(id[0])
                      .await()
                      .atMost(BOUND)
                      .equals(Optional.of(RolloutState.ABORTED)));
    }
  }

  /** Subscribes on an event loop, as a request handler does, and waits for the item. */
  private <T> T fromEventLoop(Supplier<Uni<T>> work) throws Exception {
    CompletableFuture<T> result = new CompletableFuture<>();
    Context eventLoop = vertx.getOrCreateContext();
    assertThat(eventLoop.isEventLoopContext()).isTrue();
    eventLoop.runOnContext(
        ignored -> work.get().subscribe().with(result::complete, result::completeExceptionally));
    return result.get(BOUND.toSeconds(), TimeUnit.SECONDS);
  }
}
