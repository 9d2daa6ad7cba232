package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class PartitionWriteOrderTest {
  private static final int LIMIT = 100;
  private final PartitionWriteOrder<Integer, String> order = new PartitionWriteOrder<>(LIMIT);

  private static List<String> batches(PartitionWriteOrder.Joined<String> joined) {
    return joined.group().turn().toCompletableFuture().join().batches();
  }

  private static boolean mayWrite(PartitionWriteOrder.Joined<String> joined) {
    return joined.group().turn().toCompletableFuture().isDone();
  }

  @Test
  void theFirstBatchOfAPartitionWritesAtOnce() {
    PartitionWriteOrder.Joined<String> first = order.join(List.of(1, 2), "a", 1);

    assertThat(first.opened()).isTrue();
    assertThat(batches(first)).containsExactly("a");
    assertThat(first.handOver()).isCompleted();
  }

  @Test
  void aBatchWaitsForTheWriteOfTheBatchBeforeItOfAnyOfItsPartitions() {
    PartitionWriteOrder.Joined<String> first = order.join(List.of(1), "a", 1);
    PartitionWriteOrder.Joined<String> second = order.join(List.of(2), "b", 1);
    PartitionWriteOrder.Joined<String> both = order.join(List.of(1, 2), "c", 1);

    first.group().finished();
    assertThat(mayWrite(both)).isFalse();
    second.group().finished();
    assertThat(batches(both)).containsExactly("c");
  }

  @Test
  void batchesOfOtherPartitionsDoNotWait() {
    order.join(List.of(1), "a", 1);
    PartitionWriteOrder.Joined<String> other = order.join(List.of(2), "b", 1);

    assertThat(other.opened()).isTrue();
    assertThat(batches(other)).containsExactly("b");
  }

  @Test
  void batchesThatWaitForTheSameWriteAreWrittenTogetherInTheOrderReceived() {
    PartitionWriteOrder.Joined<String> first = order.join(List.of(1, 2), "a", 10);
    PartitionWriteOrder.Joined<String> second = order.join(List.of(1), "b", 10);
    PartitionWriteOrder.Joined<String> third = order.join(List.of(2), "c", 10);
    PartitionWriteOrder.Joined<String> fourth = order.join(List.of(1, 2), "d", 10);

    assertThat(second.opened()).isTrue();
    assertThat(List.of(third, fourth))
        .allSatisfy(
            joined -> {
              assertThat(joined.opened()).isFalse();
              assertThat(joined.group()).isSameAs(second.group());
              assertThat(joined.handOver()).isCompleted();
            });
    assertThat(mayWrite(second)).isFalse();
    first.group().finished();
    assertThat(batches(second)).containsExactly("b", "c", "d");
  }

  @Test
  void aBatchArrivingOnceTheGroupWritesWaitsForIt() {
    PartitionWriteOrder.Joined<String> first = order.join(List.of(1), "a", 1);
    PartitionWriteOrder.Joined<String> second = order.join(List.of(1), "b", 1);
    first.group().finished();
    PartitionWriteOrder.Joined<String> third = order.join(List.of(1), "c", 1);

    assertThat(batches(second)).containsExactly("b");
    assertThat(third.group()).isNotSameAs(second.group());
    assertThat(mayWrite(third)).isFalse();
    second.group().finished();
    assertThat(batches(third)).containsExactly("c");
  }

  @Test
  void aBatchDoesNotJoinAGroupThatWaitsForAWriteItNeedNotWaitFor() {
    PartitionWriteOrder.Joined<String> first = order.join(List.of(1), "a", 1);
    PartitionWriteOrder.Joined<String> waiting = order.join(List.of(1), "b", 1);
    PartitionWriteOrder.Joined<String> other = order.join(List.of(2), "c", 1);
    PartitionWriteOrder.Joined<String> otherNext = order.join(List.of(2), "d", 1);

    assertThat(batches(other)).containsExactly("c");
    assertThat(otherNext.group()).isNotSameAs(waiting.group());
    other.group().finished();
    assertThat(batches(otherNext)).containsExactly("d");
    assertThat(mayWrite(waiting)).isFalse();
    first.group().finished();
    assertThat(batches(waiting)).containsExactly("b");
  }

  @Test
  void aBatchThatWaitsForAnotherWriteAsWellOpensAGroupAfterBoth() {
    PartitionWriteOrder.Joined<String> one = order.join(List.of(1), "a", 1);
    PartitionWriteOrder.Joined<String> waitingOnOne = order.join(List.of(1), "b", 1);
    PartitionWriteOrder.Joined<String> two = order.join(List.of(2), "c", 1);
    PartitionWriteOrder.Joined<String> both = order.join(List.of(1, 2), "d", 1);

    assertThat(both.group()).isNotSameAs(waitingOnOne.group());
    one.group().finished();
    assertThat(batches(waitingOnOne)).containsExactly("b");
    waitingOnOne.group().finished();
    assertThat(mayWrite(both)).isFalse();
    two.group().finished();
    assertThat(batches(both)).containsExactly("d");
  }

  @Test
  void aFullGroupTakesNoMoreBatchesAndHoldsTheNextHandOverUntilItsTurn() {
    PartitionWriteOrder.Joined<String> first = order.join(List.of(1), "a", 1);
    PartitionWriteOrder.Joined<String> filling = order.join(List.of(1), "b", LIMIT - 1);
    PartitionWriteOrder.Joined<String> full = order.join(List.of(1), "c", 1);
    PartitionWriteOrder.Joined<String> next = order.join(List.of(1), "d", 1);

    assertThat(filling.handOver()).isCompleted();
    assertThat(full.group()).isSameAs(filling.group());
    assertThat(full.handOver()).isNotDone();
    assertThat(next.group()).isNotSameAs(full.group());
    first.group().finished();
    assertThat(full.handOver()).isCompleted();
    assertThat(batches(full)).containsExactly("b", "c");
    assertThat(mayWrite(next)).isFalse();
  }

  @Test
  void aFailedWriteFailsTheGroupsWaitingOnIt() {
    PartitionWriteOrder.Joined<String> first = order.join(List.of(1), "a", 1);
    PartitionWriteOrder.Joined<String> second = order.join(List.of(1, 2), "b", 1);

    first.group().failed(new IllegalStateException("stopping"));

    CompletableFuture<PartitionWriteOrder.Turn<String>> turn =
        second.group().turn().toCompletableFuture();
    assertThat(turn.join().batches()).containsExactly("b");
    assertThat(turn.join().earlierFailure())
        .map(Throwable::getMessage)
        .isEqualTo(Optional.of("stopping"));
  }
}
