package io.fleetwave.agent.publish;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.NodeEvent;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Delivers one node's {@link Outbox} to Kafka in order: one event in flight at a time, removed from
 * the outbox only once acknowledged, the head sent again after a failure. With one in flight, no
 * newer event can overtake an older one: the idempotent producer keeps order only within a delivery
 * timeout, and after a failed batch it may send later records without the failed one. Throughput is
 * one round trip per event and node; nodes sharing a publisher are batched together.
 *
 * <p>Nothing expires: while the broker is unreachable, the head is tried again every {@code
 * retryAfter} (each try itself bounded by the producer's delivery timeout) and new events wait in
 * the outbox behind it. The depth is logged when the backlog starts, every {@code logEvery} while
 * it lasts, and when it is drained, never per event.
 */
public final class OrderedDelivery implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(OrderedDelivery.class.getName());

  /**
   * @param retryAfter pause before the head is sent again after a failure
   * @param logEvery interval of the depth log line while a backlog lasts
   */
  public record Settings(Duration retryAfter, Duration logEvery) {
    public static final Settings DEFAULT =
        new Settings(Duration.ofSeconds(1), Duration.ofMinutes(1));

    public Settings {
      Objects.requireNonNull(retryAfter, "retryAfter");
      Objects.requireNonNull(logEvery, "logEvery");
    }
  }

  private final String nodeName;
  private final Outbox outbox;
  private final EventPublisher publisher;
  private final ScheduledExecutorService executor;
  private final Settings settings;
  private final Clock clock;
  private final Map<String, CompletableFuture<RecordMetadata>> waiting = new ConcurrentHashMap<>();
  private boolean sending;
  private boolean closed;
  private Instant backlogSince;
  private Instant lastDepthLog;
  private long deliveredInBacklog;
  private volatile Consumer<Envelope<NodeEvent>> onAcknowledged = envelope -> {};
  private volatile Instant lastAcknowledged;

  /**
   * @param executor where sends and retries run (never the producer's I/O thread); {@link
   *     EventPublisher#deliveryExecutor()} for agents sharing a publisher
   */
  public OrderedDelivery(
      String nodeName,
      Outbox outbox,
      EventPublisher publisher,
      ScheduledExecutorService executor,
      Settings settings,
      Clock clock) {
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.executor = Objects.requireNonNull(executor, "executor");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Starts delivering what the outbox already holds (a previous run's spool). */
  public void start() {
    kick();
  }

  /**
   * Keeps the event behind everything not yet delivered.
   *
   * @return a future completed by the broker's acknowledgement (failed only if the agent closes
   *     first), or empty when the outbox is full and nothing was kept
   */
  public Optional<CompletableFuture<RecordMetadata>> offer(Envelope<NodeEvent> envelope) {
    CompletableFuture<RecordMetadata> acknowledged = new CompletableFuture<>();
    synchronized (this) {
      if (closed) {
        return Optional.of(
            CompletableFuture.failedFuture(
                new IllegalStateException("event delivery of node " + nodeName + " is closed")));
      }
      waiting.put(envelope.id(), acknowledged);
      if (!outbox.offer(envelope)) {
        waiting.remove(envelope.id());
        return Optional.empty();
      }
    }
    kick();
    return Optional.of(acknowledged);
  }

  /** True when the outbox is below half its bound: room to declare a gap and restate the node. */
  public boolean hasRoomToRecover() {
    return outbox.bytes() < outbox.limitBytes() / 2;
  }

  public Outbox outbox() {
    return outbox;
  }

  public int depth() {
    return outbox.depth();
  }

  /** Encoded bytes waiting in the outbox. */
  public synchronized long bytes() {
    return outbox.bytes();
  }

  /**
   * When Kafka last acknowledged an event of this delivery; empty until the first one. Read by the
   * agent's readiness (publishing) and metrics.
   */
  public Optional<Instant> lastAcknowledged() {
    return Optional.ofNullable(lastAcknowledged);
  }

  /**
   * Told of every event Kafka acknowledged, once, after it left the outbox (metrics); must not
   * block: it runs on the delivery executor.
   */
  public void onAcknowledged(Consumer<Envelope<NodeEvent>> listener) {
    onAcknowledged = Objects.requireNonNull(listener, "listener");
  }

  private void kick() {
    synchronized (this) {
      if (sending || closed) {
        return;
      }
      sending = true;
    }
    run(this::sendHead, Duration.ZERO);
  }

  private void sendHead() {
    Optional<Envelope<NodeEvent>> head;
    synchronized (this) {
      if (closed) {
        sending = false;
        return;
      }
      head = outbox.head();
      if (head.isEmpty()) {
        sending = false;
        drained();
        return;
      }
    }
    Envelope<NodeEvent> envelope = head.get();
    var _ =
        publisher
            .publish(envelope)
            .whenComplete(
                (metadata, error) ->
                    // Off the producer's I/O thread: the next send may block on metadata.
                    run(() -> sent(envelope, metadata, error), Duration.ZERO));
  }

  private void sent(Envelope<NodeEvent> envelope, RecordMetadata metadata, Throwable error) {
    synchronized (this) {
      if (closed) {
        sending = false;
        return;
      }
      if (error != null) {
        backlog(error);
        run(this::sendHead, settings.retryAfter());
        return;
      }
      outbox.removeHead();
      lastAcknowledged = clock.instant();
      if (backlogSince != null) {
        deliveredInBacklog++;
      }
    }
    onAcknowledged.accept(envelope);
    CompletableFuture<RecordMetadata> done = waiting.remove(envelope.id());
    if (done != null) {
      done.complete(metadata);
    }
    sendHead();
  }

  /** Called under the lock after a failed send. */
  private void backlog(Throwable error) {
    Instant now = clock.instant();
    if (backlogSince == null) {
      backlogSince = now;
      lastDepthLog = now;
      deliveredInBacklog = 0;
      LOG.log(
          Level.WARNING,
          "node {0}: Kafka did not acknowledge an event ({1}); keeping {2} events in order in the"
              + " {3} until it does",
          nodeName,
          error.toString(),
          outbox.depth(),
          outbox.describe());
    } else if (!now.isBefore(lastDepthLog.plus(settings.logEvery()))) {
      lastDepthLog = now;
      LOG.log(
          Level.WARNING,
          "node {0}: {1} events ({2} of {3} bytes) waiting for Kafka in the {4} for {5}",
          nodeName,
          outbox.depth(),
          outbox.bytes(),
          outbox.limitBytes(),
          outbox.describe(),
          Duration.between(backlogSince, now));
    }
  }

  /** Called under the lock when the outbox is empty. */
  private void drained() {
    if (backlogSince != null) {
      LOG.log(
          Level.INFO,
          "node {0}: Kafka is back; delivered {1} held events in order after {2}, the {3} is empty",
          nodeName,
          deliveredInBacklog,
          Duration.between(backlogSince, clock.instant()),
          outbox.describe());
      backlogSince = null;
    }
  }

  /** Runs a step of the delivery; one that throws (spool unreadable) is tried again later. */
  private void run(Runnable step, Duration after) {
    Runnable guarded =
        () -> {
          try {
            step.run();
          } catch (RuntimeException e) {
            LOG.log(
                Level.ERROR,
                "node {0}: event delivery failed, trying again in {1}: {2}",
                nodeName,
                settings.retryAfter(),
                e.toString());
            run(this::sendHead, settings.retryAfter());
          }
        };
    try {
      var _ = executor.schedule(guarded, after.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // The publisher is closing: what is left stays in the outbox (the spool keeps it).
      synchronized (this) {
        sending = false;
      }
    }
  }

  /**
   * Stops delivering and releases the outbox: a spool keeps what was not acknowledged for the next
   * run, a memory queue loses it. Waiting futures fail: for an orderly stop, wait for the last
   * event's acknowledgement first.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      outbox.close();
    }
    IllegalStateException stopped =
        new IllegalStateException("node " + nodeName + " stopped before Kafka acknowledged");
    waiting.values().forEach(f -> f.completeExceptionally(stopped));
    waiting.clear();
  }
}
