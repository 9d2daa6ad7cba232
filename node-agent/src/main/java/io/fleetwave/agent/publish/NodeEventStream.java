package io.fleetwave.agent.publish;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.NodeEvent;
import java.net.URI;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The events of one agent run: a fixed epoch and a sequence from 0. Numbering and sending happen
 * under one lock, so the order on the topic is the (epoch, seq) order.
 */
public final class NodeEventStream {
  private final String nodeName;
  private final URI source;
  private final long epoch;
  private final EventPublisher publisher;
  private final Clock clock;
  private long nextSeq;

  public NodeEventStream(
      String nodeName, URI source, long epoch, EventPublisher publisher, Clock clock) {
    this.nodeName = nodeName;
    this.source = source;
    this.epoch = epoch;
    this.publisher = publisher;
    this.clock = clock;
  }

  /**
   * An epoch for a new run: its start time in ms, and above the previous run's even if the clock
   * has not moved on (or went back), so epochs grow across restarts without local state.
   */
  public static long nextEpoch(long previousEpoch, Clock clock) {
    return Math.max(clock.millis(), previousEpoch + 1);
  }

  /**
   * Publishes without waiting for the broker: a failure is logged and counted by the {@link
   * EventPublisher} (and reaches its {@link EventPublisher#onFailure} listener), not the caller.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // fire and forget, as documented above
  public void send(NodeEvent event) {
    publish(event);
  }

  /** Publishes; the future completes with the broker's acknowledgement or the failure. */
  public synchronized CompletableFuture<RecordMetadata> publish(NodeEvent event) {
    Envelope<NodeEvent> envelope =
        Envelope.of(source, nodeName, clock.instant(), epoch, nextSeq++, event);
    return publisher.publish(envelope);
  }

  public long epoch() {
    return epoch;
  }

  public synchronized long nextSeq() {
    return nextSeq;
  }
}
