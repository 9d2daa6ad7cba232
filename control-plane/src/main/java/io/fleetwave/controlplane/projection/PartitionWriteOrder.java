package io.fleetwave.controlplane.projection;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Keeps the batches of each Kafka partition writing in the order they were received, while the
 * consumer already decodes the next one. A batch takes a {@link Turn} over its partitions when it
 * is handed over; its write may start once every earlier batch of those partitions has finished its
 * write ({@link Turn#before}), and it completes {@link Turn#done} when its own write is over.
 *
 * <p>Why a partition and not the whole channel: a node's events are keyed into one partition, so
 * ordering per partition is what keeps every node's events in order, and the consumers of several
 * partitions (mp.messaging.incoming.node-events.partitions) still write side by side. A write that
 * failed fails the turns waiting on it, so nothing of a partition is written after a gap.
 *
 * @param <P> a partition's identity (Kafka's TopicPartition in the consumer)
 */
final class PartitionWriteOrder<P> {
  private final Map<P, CompletableFuture<Void>> lastWrite = new HashMap<>();

  /** A batch's place in the order: what it waits for, and what it completes. */
  record Turn(CompletableFuture<Void> before, CompletableFuture<Void> done) {}

  /** Takes the next turn on {@code partitions}: after every earlier turn that shares one. */
  synchronized Turn take(Collection<P> partitions) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<?>[] earlier =
        partitions.stream()
            .map(lastWrite::get)
            .filter(Objects::nonNull)
            .distinct()
            .toArray(CompletableFuture<?>[]::new);
    for (P partition : partitions) {
      lastWrite.put(partition, done);
    }
    // Bounded by the partitions this process has held: one entry each, the newest write only.
    return new Turn(CompletableFuture.allOf(earlier), done);
  }
}
