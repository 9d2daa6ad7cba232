package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.core.projection.BatchChanges;
import io.smallrye.mutiny.Uni;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The isolation of refused events, against a stand-in database that refuses any transaction holding
 * a "bad" item: whatever the batch and wherever its bad items sit, exactly the bad ones are
 * refused, every other one is applied once, all in log order, at a bounded cost in transactions.
 */
class RefusalIsolationProperties {
  private static final Duration BOUND = Duration.ofSeconds(5);

  /** Records what a database would have committed and what was refused. */
  private static final class Database {
    final Set<Integer> bad;
    final List<Integer> committed = new ArrayList<>();
    final List<Integer> refused = new ArrayList<>();
    int transactions;

    Database(Set<Integer> bad) {
      this.bad = bad;
    }

    Uni<BatchChanges> transaction(List<Integer> items) {
      transactions++;
      if (items.stream().anyMatch(bad::contains)) {
        return Uni.createFrom()
            .failure(
                new PgException(
                    "duplicate key value violates unique constraint \"gpus_pkey\"",
                    "ERROR",
                    "23505",
                    "Key (node, gpu_index)=(n, 0) already exists."));
      }
      committed.addAll(items);
      return Uni.createFrom().item(BatchChanges.NONE);
    }

    Uni<Void> refuse(Integer item, PgException refusal) {
      assertThat(refusal.getSqlState()).isEqualTo("23505");
      refused.add(item);
      return Uni.createFrom().voidItem();
    }

    void apply(List<Integer> batch) {
      new RefusalIsolation<Integer>(this::transaction, this::refuse)
          .apply(batch)
          .await()
          .atMost(BOUND);
    }
  }

  @Property(tries = 500)
  void exactlyTheRefusedEventsAreLeftOutAndTheOthersAppliedOnceInOrder(
      @ForAll("batches") List<Boolean> refusedAt) {
    List<Integer> batch = IntStream.range(0, refusedAt.size()).boxed().toList();
    Set<Integer> bad =
        batch.stream().filter(refusedAt::get).collect(Collectors.toUnmodifiableSet());
    Database database = new Database(bad);

    database.apply(batch);

    assertThat(database.refused).isEqualTo(batch.stream().filter(bad::contains).toList());
    assertThat(database.committed).isEqualTo(batch.stream().filter(i -> !bad.contains(i)).toList());
    int log2 = 32 - Integer.numberOfLeadingZeros(batch.size());
    assertThat(database.transactions)
        .as("transactions for %d refused among %d", bad.size(), batch.size())
        .isLessThanOrEqualTo(1 + 2 * bad.size() * log2);
  }

  /** Batches of 1 to 300 events, none to all of them refused. */
  @Provide
  Arbitrary<List<Boolean>> batches() {
    return Arbitraries.of(0, 1, 10, 50, 100)
        .flatMap(
            percent ->
                Arbitraries.integers()
                    .between(0, 99)
                    .map(draw -> draw < percent)
                    .list()
                    .ofMinSize(1)
                    .ofMaxSize(300));
  }

  @Test
  void aBatchWithoutRefusalIsOneTransaction() {
    Database database = new Database(Set.of());
    database.apply(List.of(1, 2, 3));
    assertThat(database.transactions).isEqualTo(1);
    assertThat(database.committed).containsExactly(1, 2, 3);
  }

  @Test
  void aWholeBatchOfRefusedEventsOfTheLargestPollIsIsolatedWithoutExhaustingTheStack() {
    List<Integer> batch = IntStream.range(0, 5000).boxed().toList();
    Database database = new Database(Set.copyOf(batch));
    database.apply(batch);
    assertThat(database.refused).isEqualTo(batch);
  }

  @Test
  void aFailureThatIsNotARefusalIsNotIsolatedButPassedOn() {
    List<List<Integer>> attempted = new ArrayList<>();
    RefusalIsolation<Integer> isolation =
        new RefusalIsolation<>(
            items -> {
              attempted.add(items);
              return Uni.createFrom().failure(ClosedConnectionException.INSTANCE);
            },
            (item, refusal) -> {
              throw new AssertionError("nothing is refused when the database is away");
            });
    assertThatThrownBy(() -> isolation.apply(List.of(1, 2, 3, 4)).await().atMost(BOUND))
        .isInstanceOf(ClosedConnectionException.class);
    assertThat(attempted).containsExactly(List.of(1, 2, 3, 4));
  }
}
