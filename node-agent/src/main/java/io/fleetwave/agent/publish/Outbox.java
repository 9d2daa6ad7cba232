package io.fleetwave.agent.publish;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.NodeEvent;
import java.util.Optional;

/**
 * One node's events that the broker has not acknowledged yet, oldest first. {@link OrderedDelivery}
 * sends the head and removes it only once Kafka has acknowledged it, so nothing newer ever
 * overtakes an older event. Bounded in encoded bytes: {@link #offer} refuses what would pass the
 * bound, and the caller declares what it could not keep ({@link
 * io.fleetwave.events.node.EventsDropped}).
 */
public interface Outbox extends AutoCloseable {

  /**
   * Keeps the event at the tail.
   *
   * @return false when it would pass the bound: nothing was kept
   */
  boolean offer(Envelope<NodeEvent> envelope);

  /** The oldest event not yet acknowledged. */
  Optional<Envelope<NodeEvent>> head();

  /** The head was acknowledged by the broker: forget it. */
  void removeHead();

  int depth();

  /** Encoded bytes held now. */
  long bytes();

  /** The bound on {@link #bytes()}. */
  long limitBytes();

  /** The largest epoch held, or -1 when empty: a new run must number above it. */
  long newestEpoch();

  /** Where the events are kept, for log lines ("spool file /var/lib/...", "memory queue"). */
  String describe();

  /** Releases the store; a durable one keeps what it holds for the next run. */
  @Override
  void close();
}
