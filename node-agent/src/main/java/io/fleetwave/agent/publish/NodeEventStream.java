package io.fleetwave.agent.publish;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.EventsDropped;
import io.fleetwave.events.node.NodeEvent;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The events of one agent run: a fixed epoch and a sequence from 0. Numbering and handing to the
 * {@link OrderedDelivery} happen under one lock, so the order on the topic is the (epoch, seq)
 * order.
 *
 * <p>When the outbox is full, the events that do not fit are dropped, their seqs kept as a gap.
 * Once the outbox has drained below half its bound, the next event is preceded by one {@link
 * EventsDropped} naming the gap and by the node's current state ({@code restatement}: registration
 * and inventory), so what the gap hid is stated again.
 */
public final class NodeEventStream {
  private static final System.Logger LOG = System.getLogger(NodeEventStream.class.getName());

  private final String nodeName;
  private final URI source;
  private final long epoch;
  private final OrderedDelivery delivery;
  private final Clock clock;
  private final Supplier<List<NodeEvent>> restatement;
  private final EventLines lines;
  private long nextSeq;
  private long droppedFrom = -1;
  private long droppedTo = -1;

  /**
   * @param restatement the node's current state, published after a declared gap; called under this
   *     stream's lock, so it must not wait on one the publishing threads hold
   */
  public NodeEventStream(
      String nodeName,
      URI source,
      long epoch,
      OrderedDelivery delivery,
      Clock clock,
      Supplier<List<NodeEvent>> restatement) {
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.source = Objects.requireNonNull(source, "source");
    this.epoch = epoch;
    this.delivery = Objects.requireNonNull(delivery, "delivery");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.restatement = Objects.requireNonNull(restatement, "restatement");
    this.lines = new EventLines(nodeName);
  }

  /**
   * An epoch for a new run: above the previous run's, and its start time in ms where the clock is
   * ahead of that. Epochs therefore grow across restarts even when the clock went back, as long as
   * {@code previousEpoch} is known (see {@link EpochFile} and {@link LastEpochOnTopic}).
   *
   * @throws IllegalStateException when {@code previousEpoch} is the largest long: no epoch follows
   *     it
   */
  public static long nextEpoch(long previousEpoch, Clock clock) {
    try {
      return Math.max(clock.millis(), Math.addExact(previousEpoch, 1));
    } catch (ArithmeticException e) {
      // Wrapping round to a negative epoch would put every later event behind the old ones.
      throw new IllegalStateException(
          "the node's last epoch is "
              + previousEpoch
              + ", the largest there is: no later epoch exists, so no new run's events would be"
              + " projected; remove the node's events from fleet.node-events (or its epoch file)"
              + " and start again");
    }
  }

  /**
   * Publishes without waiting for the broker: delivery happens in order in the background, and what
   * the outbox cannot keep is declared by an {@link EventsDropped}.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // fire and forget, as documented above
  public void send(NodeEvent event) {
    publish(event);
  }

  /**
   * Publishes; the future completes with the broker's acknowledgement, however long the broker is
   * away, and fails only when the event was dropped (outbox full) or the run closed first.
   */
  public synchronized CompletableFuture<RecordMetadata> publish(NodeEvent event) {
    if (droppedFrom >= 0 && delivery.hasRoomToRecover()) {
      declareGap();
    }
    return offer(event);
  }

  private CompletableFuture<RecordMetadata> offer(NodeEvent event) {
    long seq = nextSeq++;
    Instant now = clock.instant();
    // While a gap is open every event joins it, even one the outbox could take: accepted, it would
    // reach the topic before the EventsDropped that declares the seqs below it.
    Optional<CompletableFuture<RecordMetadata>> acknowledged =
        droppedFrom >= 0
            ? Optional.empty()
            : delivery.offer(Envelope.of(source, nodeName, now, epoch, seq, event));
    if (acknowledged.isPresent()) {
      lines.published(epoch, seq, now, event);
      return acknowledged.get();
    }
    dropped(seq);
    return CompletableFuture.failedFuture(
        new IllegalStateException(
            "event #" + epoch + "/" + seq + " of node " + nodeName + " dropped: " + fullReason()));
  }

  private void dropped(long seq) {
    if (droppedFrom < 0) {
      droppedFrom = seq;
      LOG.log(
          Level.ERROR,
          "node {0}: {1}; dropping events from #{2}/{3} until it has drained below half, then"
              + " declaring them in one EventsDropped",
          nodeName,
          fullReason(),
          epoch,
          seq);
    }
    droppedTo = seq;
  }

  private void declareGap() {
    long from = droppedFrom;
    long to = droppedTo;
    long seq = nextSeq++;
    EventsDropped gap = new EventsDropped(from, to, to - from + 1, fullReason());
    Instant now = clock.instant();
    if (delivery.offer(Envelope.of(source, nodeName, now, epoch, seq, gap)).isEmpty()) {
      droppedTo = seq; // not even the declaration fit: the gap grows to include it
      return;
    }
    lines.published(epoch, seq, now, gap);
    droppedFrom = -1;
    droppedTo = -1;
    LOG.log(
        Level.WARNING,
        "node {0}: declared {1} dropped events #{2}/{3}..{4}; publishing its registration and"
            + " inventory again",
        nodeName,
        to - from + 1,
        epoch,
        from,
        to);
    for (NodeEvent state : restatement.get()) {
      var _ = offer(state); // a failure is a drop, counted in the next gap
    }
  }

  private String fullReason() {
    return "the " + delivery.outbox().describe() + " was full";
  }

  public long epoch() {
    return epoch;
  }

  public synchronized long nextSeq() {
    return nextSeq;
  }

  /** Events handed over and not yet acknowledged by the broker. */
  public int depth() {
    return delivery.depth();
  }
}
