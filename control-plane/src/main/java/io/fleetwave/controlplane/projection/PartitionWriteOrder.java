package io.fleetwave.controlplane.projection;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Keeps the batches of each Kafka partition writing in the order they were received, while the
 * consumer already decodes the next ones, and writes the batches that wait for the same write
 * together. A batch joins a {@link Group}; a group writes once every earlier group of its
 * partitions has finished its write ({@link Group#turn}), all its batches in one transaction.
 *
 * <p>Why groups: once the projection has caught up, the consumer polls a few dozen records at a
 * time and the connector queues each poll as a batch of its own. Written one by one, a record
 * waited for every small batch queued before it, each paying the transaction's round trips (the
 * projection bench, 10,000 nodes at 1,000 events/s: batches of ~25 records, each ~25 ms of writing,
 * a record ~70 ms in the queue before it was handed over). Grouped, a record waits for the write
 * under way and then its own.
 *
 * <p>Why a partition and not the whole channel: a node's events are keyed into one partition, so
 * ordering per partition is what keeps every node's events in order, and the consumers of several
 * partitions (mp.messaging.incoming.node-events.partitions) still write side by side: a batch joins
 * a waiting group only if that group already comes after every write the batch must wait for. A
 * write that failed fails the groups waiting on it, so nothing of a partition is written after a
 * gap.
 *
 * @param <P> a partition's identity (Kafka's TopicPartition in the consumer)
 * @param <M> a batch, as the group hands it back to be written
 */
final class PartitionWriteOrder<P, M> {
  private final int groupLimit;
  private final Map<P, Group<M>> newest = new HashMap<>();
  private final List<Group<M>> waiting = new ArrayList<>();

  /**
   * @param groupLimit the records from which a group takes no more batches, and the channel hands
   *     over the next batch only once the group writes (what bounds the records held in memory)
   */
  PartitionWriteOrder(int groupLimit) {
    this.groupLimit = groupLimit;
  }

  /** What a group's turn gives: its batches, and the failure of an earlier write, if one failed. */
  record Turn<M>(List<M> batches, Optional<Throwable> earlierFailure) {}

  /**
   * Where a batch went: its group, whether it opened that group (its caller then writes the group
   * on its turn), and when the channel may hand over the next batch.
   */
  record Joined<M>(Group<M> group, boolean opened, CompletionStage<Void> handOver) {}

  /** Batches written together, after the groups of their partitions before them. */
  static final class Group<M> {
    private Set<Group<M>> after;
    private final List<M> batches = new ArrayList<>();
    private int records;
    private final CompletableFuture<Turn<M>> turn = new CompletableFuture<>();
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    private Group(Set<Group<M>> after) {
      this.after = after;
    }

    /** Completes once every earlier write of the group's partitions is over (or one failed). */
    CompletionStage<Turn<M>> turn() {
      return turn;
    }

    /** The group's write is over: the groups after it may write. */
    void finished() {
      done.complete(null);
    }

    /** The group's write failed: the groups waiting on it fail too. */
    void failed(Throwable failure) {
      done.completeExceptionally(failure);
    }

    private boolean mayFollow(Group<M> earlier) {
      return earlier == this || after.contains(earlier);
    }
  }

  /**
   * Adds a batch of {@code records} records over {@code partitions} to the waiting group that
   * already follows every earlier write of those partitions, or to a new group after them.
   */
  Joined<M> join(Collection<P> partitions, M batch, int records) {
    Group<M> group;
    boolean opened;
    boolean full;
    CompletableFuture<?>[] earlierWrites = {};
    synchronized (this) {
      group = waitingGroupFor(partitions);
      opened = group == null;
      if (opened) {
        Set<Group<M>> earlier = new HashSet<>();
        for (P partition : partitions) {
          Group<M> last = newest.get(partition);
          if (last != null && !last.done.isDone()) {
            earlier.add(last);
          }
        }
        group = new Group<>(earlier);
        waiting.add(group);
        earlierWrites = earlier.stream().map(g -> g.done).toArray(CompletableFuture<?>[]::new);
      }
      group.batches.add(batch);
      group.records += records;
      for (P partition : partitions) {
        newest.put(partition, group);
      }
      full = group.records >= groupLimit;
    }
    CompletionStage<Void> handOver =
        full ? group.turn.thenApply(turn -> null) : CompletableFuture.completedFuture(null);
    if (opened) {
      Group<M> started = group;
      // start() never throws: the stage whenComplete returns has nothing to report.
      var _ =
          CompletableFuture.allOf(earlierWrites)
              .whenComplete((ignored, failure) -> start(started, failure));
    }
    return new Joined<>(group, opened, handOver);
  }

  /**
   * The waiting group a batch over these partitions may join: one that already waits for every
   * unfinished write the batch must wait for. A batch that need not wait joins none (it writes at
   * once, beside the others).
   */
  private Group<M> waitingGroupFor(Collection<P> partitions) {
    for (Group<M> group : waiting) {
      boolean waits = false;
      boolean follows = group.records < groupLimit;
      for (P partition : partitions) {
        Group<M> last = newest.get(partition);
        if (last != null && !last.done.isDone()) {
          waits = true;
          follows &= group.mayFollow(last);
        }
      }
      if (waits && follows) {
        return group;
      }
    }
    return null;
  }

  private void start(Group<M> group, Throwable earlierFailure) {
    List<M> batches;
    synchronized (this) {
      waiting.remove(group);
      batches = List.copyOf(group.batches);
      // What it held is written now: no reference keeps earlier groups or their batches alive.
      group.batches.clear();
      group.after = Set.of();
    }
    group.turn.complete(
        new Turn<>(batches, Optional.ofNullable(earlierFailure).map(PartitionWriteOrder::cause)));
  }

  /** allOf wraps the failure of the write it waited on. */
  private static Throwable cause(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }
}
