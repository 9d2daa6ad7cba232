package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletionException;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class PartitionWriteOrderTest {
  private final PartitionWriteOrder<Integer> order = new PartitionWriteOrder<>();

  @Test
  void theFirstBatchOfAPartitionWritesAtOnce() {
    assertThat(order.take(List.of(1, 2)).before()).isCompleted();
  }

  @Test
  void aBatchWaitsForTheWriteOfTheBatchBeforeItOfAnyOfItsPartitions() {
    PartitionWriteOrder.Turn first = order.take(List.of(1));
    PartitionWriteOrder.Turn second = order.take(List.of(2));
    PartitionWriteOrder.Turn both = order.take(List.of(1, 2));

    first.done().complete(null);
    assertThat(both.before()).isNotDone();
    second.done().complete(null);
    assertThat(both.before()).isCompleted();
  }

  @Test
  void batchesOfOtherPartitionsDoNotWait() {
    order.take(List.of(1));
    assertThat(order.take(List.of(2)).before()).isCompleted();
  }

  @Test
  void aBatchWaitsOnlyForTheNewestWriteOfItsPartition() {
    PartitionWriteOrder.Turn first = order.take(List.of(1));
    PartitionWriteOrder.Turn second = order.take(List.of(1));
    PartitionWriteOrder.Turn third = order.take(List.of(1));

    first.done().complete(null);
    assertThat(second.before()).isCompleted();
    assertThat(third.before()).isNotDone();
    second.done().complete(null);
    assertThat(third.before()).isCompleted();
  }

  @Test
  void aFailedWriteFailsTheBatchesWaitingOnIt() {
    PartitionWriteOrder.Turn first = order.take(List.of(1));
    PartitionWriteOrder.Turn second = order.take(List.of(1, 2));

    first.done().completeExceptionally(new IllegalStateException("stopping"));
    assertThat(second.before()).isCompletedExceptionally();
    Assertions.assertThatThrownBy(() -> second.before().join())
        .isInstanceOf(CompletionException.class)
        .hasRootCauseMessage("stopping");
  }
}
