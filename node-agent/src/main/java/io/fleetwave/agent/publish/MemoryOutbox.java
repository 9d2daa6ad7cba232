package io.fleetwave.agent.publish;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.NodeEvent;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The outbox of an agent on a read-only host (Talos, COS): a queue in memory, bounded in encoded
 * bytes. What it holds is lost with the process, as everything else the agent knows there; the
 * event log is the state.
 */
public final class MemoryOutbox extends ByteBoundedOutbox {
  /** Default bound: about two days of 10-second heartbeats, or 4,000 large inventories. */
  public static final long DEFAULT_LIMIT_BYTES = 8L * 1024 * 1024;

  private record Held(Envelope<NodeEvent> envelope, int bytes) {}

  private final Deque<Held> queue = new ArrayDeque<>();

  public MemoryOutbox(long limitBytes) {
    super(limitBytes);
    if (limitBytes <= 0) {
      throw new IllegalArgumentException("memory queue bound must be positive: " + limitBytes);
    }
  }

  @Override
  public synchronized boolean offer(Envelope<NodeEvent> envelope) {
    int size = EventCodec.encode(envelope).length;
    if (!fits(size)) {
      return false;
    }
    queue.addLast(new Held(envelope, size));
    held(size);
    return true;
  }

  @Override
  public synchronized Optional<Envelope<NodeEvent>> head() {
    return Optional.ofNullable(queue.peekFirst()).map(Held::envelope);
  }

  @Override
  public synchronized void removeHead() {
    Held head = queue.pollFirst();
    if (head != null) {
      released(head.bytes());
    }
  }

  @Override
  public synchronized int depth() {
    return queue.size();
  }

  @Override
  public synchronized long newestEpoch() {
    return queue.isEmpty() ? -1 : queue.peekLast().envelope().epoch();
  }

  @Override
  public String describe() {
    return "memory queue (bound " + limitBytes() + " bytes)";
  }

  @Override
  public synchronized void close() {
    queue.clear();
    released(bytes());
  }
}
