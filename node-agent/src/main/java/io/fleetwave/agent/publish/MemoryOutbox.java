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
public final class MemoryOutbox implements Outbox {
  /** Default bound: about two days of 10-second heartbeats, or 4,000 large inventories. */
  public static final long DEFAULT_LIMIT_BYTES = 8L * 1024 * 1024;

  private record Held(Envelope<NodeEvent> envelope, int bytes) {}

  private final long limitBytes;
  private final Deque<Held> queue = new ArrayDeque<>();
  private long bytes;

  public MemoryOutbox(long limitBytes) {
    if (limitBytes <= 0) {
      throw new IllegalArgumentException("memory queue bound must be positive: " + limitBytes);
    }
    this.limitBytes = limitBytes;
  }

  @Override
  public synchronized boolean offer(Envelope<NodeEvent> envelope) {
    int size = EventCodec.encode(envelope).length;
    if (bytes + size > limitBytes) {
      return false;
    }
    queue.addLast(new Held(envelope, size));
    bytes += size;
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
      bytes -= head.bytes();
    }
  }

  @Override
  public synchronized int depth() {
    return queue.size();
  }

  @Override
  public synchronized long bytes() {
    return bytes;
  }

  @Override
  public long limitBytes() {
    return limitBytes;
  }

  @Override
  public synchronized long newestEpoch() {
    return queue.isEmpty() ? -1 : queue.peekLast().envelope().epoch();
  }

  @Override
  public String describe() {
    return "memory queue (bound " + limitBytes + " bytes)";
  }

  @Override
  public synchronized void close() {
    queue.clear();
    bytes = 0;
  }
}
