package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.controlplane.kafka.KafkaClientConfig;
import io.fleetwave.controlplane.projection.NodeEventAuthenticity;
import io.fleetwave.controlplane.readmodel.NodeProgress;
import io.fleetwave.controlplane.readmodel.RolloutReadModel;
import io.fleetwave.core.projection.NodePosition;
import io.fleetwave.core.projection.ReconcileState;
import io.fleetwave.core.rollout.decide.Observation;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.codec.RecordTypePeek;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.payload.FleetEvent;
import io.fleetwave.events.rollout.FailureCause;
import io.vertx.mutiny.sqlclient.Pool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * What the engine knows of the nodes it waits for, with agent failures as typed causes (rendered
 * once, by {@link FailureCause#describe}, whichever source they came from). Two sources: the head
 * of fleet.node-events, read directly (only records keyed by a watched node, of a type it folds,
 * are checked and decoded) so a node's result reaches the engine in milliseconds; and the
 * projection, read when a node is first watched (after a takeover its result may be older than the
 * head) and as a periodic safety net.
 *
 * <p>Both order a node's events alike, by (epoch, seq) ({@link NodePosition}): the head takes a
 * record only when it comes after everything it and the projection hold for the node, and a fact
 * from the head counts only while it is newer than the projection. A replay of the node's own older
 * signed records (its old driver, a healthy inventory from before a GPU failed) passes the
 * signature check, but changes nothing here, as it changes nothing in the projection.
 */
public final class FleetObserver implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(FleetObserver.class);

  /**
   * The node events {@link #take} folds; every other type is skipped unread ({@link #mayMatter}).
   */
  private static final Set<Class<?>> FOLDED =
      Set.of(
          SpecApplied.class,
          SpecRejected.class,
          StepFailed.class,
          NodeRegistered.class,
          GpuInventoryReported.class);

  private final Map<String, Object> kafka;
  private final Pool pool;
  private final Duration timeout;
  private final Runnable wakeup;
  private final NodeEventAuthenticity.BatchCheck authenticity;
  private final Map<String, LiveNode> live = new ConcurrentHashMap<>();
  private final Set<String> watched = ConcurrentHashMap.newKeySet();
  private final Map<String, Projected> projected = new ConcurrentHashMap<>();
  private volatile KafkaConsumer<String, byte[]> consumer;
  private volatile boolean running = true;
  private final AtomicReference<java.time.Instant> rewindTo = new AtomicReference<>();
  // Set while a rewind waits for the broker's answer: said once, not once per poll.
  private boolean rewindDeferred;
  // Set while the node keys cannot be read: a database outage is said once, not once per poll.
  private boolean keysUnreadable;
  private Thread thread;

  /**
   * @param authenticity whether a record comes from its node (the projection's own check): a forged
   *     result must not move a rollout before the projection refuses it
   */
  public FleetObserver(
      Map<String, Object> kafkaConfig,
      Pool pool,
      Duration timeout,
      Runnable wakeup,
      NodeEventAuthenticity.BatchCheck authenticity) {
    this.authenticity = authenticity;
    this.kafka = KafkaClientConfig.shared(kafkaConfig);
    this.pool = pool;
    this.timeout = timeout;
    this.wakeup = wakeup;
  }

  /** Starts following the head of fleet.node-events; returns once positioned at its end. */
  public void start() {
    Map<String, Object> config = new HashMap<>(kafka);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20);
    consumer = new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
    List<TopicPartition> partitions = new ArrayList<>();
    for (PartitionInfo info : consumer.partitionsFor(Topics.NODE_EVENTS, timeout)) {
      partitions.add(new TopicPartition(info.topic(), info.partition()));
    }
    consumer.assign(partitions);
    consumer.seekToEnd(partitions);
    partitions.forEach(consumer::position);
    thread = Thread.ofPlatform().name("rollout-fleet-observer").daemon().start(this::follow);
  }

  private void follow() {
    try {
      while (running) {
        try {
          rewindIfAsked();
          List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
          for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
            if (record.key() != null
                && watched.contains(record.key())
                && mayMatter(record.value())) {
              records.add(record);
            }
          }
          boolean relevant = takeAuthentic(records);
          if (relevant) {
            wakeup.run();
          }
        } catch (WakeupException e) {
          // close() stops the loop; rewindTo() only cuts the poll short
        }
      }
    } catch (RuntimeException e) {
      LOG.errorf(
          e,
          "the rollout engine stopped following %s; it reads results from the projection only",
          Topics.NODE_EVENTS);
    } finally {
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(2)));
    }
  }

  /**
   * Reads the head of the log again from {@code since}: an engine that takes over learns the
   * results its in-flight nodes published while no engine ran without waiting for the projection.
   */
  public void rewindTo(java.time.Instant since) {
    rewindTo.set(since);
    KafkaConsumer<String, byte[]> current = consumer;
    if (current != null) {
      current.wakeup();
    }
  }

  /**
   * Seeks to the time asked for. A takeover asks as soon as the broker answers it, which may be a
   * moment before the broker answers this: a lookup that runs out is asked again at the next poll
   * (said once), so the observer goes on following the head. Before, the exception ended the
   * observer's thread, and the engine read its nodes' results from the projection only until the
   * replica restarted.
   */
  private void rewindIfAsked() {
    java.time.Instant since = rewindTo.get();
    if (since == null) {
      return;
    }
    Map<TopicPartition, Long> times = new HashMap<>();
    consumer.assignment().forEach(partition -> times.put(partition, since.toEpochMilli()));
    Map<TopicPartition, OffsetAndTimestamp> found;
    try {
      found = consumer.offsetsForTimes(times, timeout);
    } catch (RetriableException e) {
      if (!rewindDeferred) {
        rewindDeferred = true;
        LOG.warnf(
            "the rollout engine cannot look up %s from %s yet (%s): it asks again at the next"
                + " poll",
            Topics.NODE_EVENTS, since, e.toString());
      }
      return;
    }
    rewindDeferred = false;
    // Cleared only if no other rewind was asked for meanwhile (that one runs at the next poll).
    rewindTo.compareAndSet(since, null);
    found.forEach(
        (partition, offset) -> {
          if (offset != null) {
            consumer.seek(partition, offset.offset());
          }
        });
  }

  /**
   * Takes the records their nodes signed; the others are left to the projection, which dead-letters
   * them with the cause. Without the keys (PostgreSQL away) none is taken: the projection, read
   * again as the safety net, brings the results once it has them.
   */
  private boolean takeAuthentic(List<ConsumerRecord<String, byte[]>> records) {
    if (records.isEmpty()) {
      return false;
    }
    NodeEventAuthenticity.Check check;
    try {
      check = authenticity.forBatch(records.stream().map(ConsumerRecord::headers).toList());
    } catch (RuntimeException e) {
      if (!keysUnreadable) {
        keysUnreadable = true;
        LOG.warnf(
            "cannot read the node keys to check the records of %s (%s); until they can be read,"
                + " the rollout engine takes their results from the projection",
            Topics.NODE_EVENTS, e.toString());
      }
      return false;
    }
    if (keysUnreadable) {
      keysUnreadable = false;
      LOG.infof(
          "the node keys can be read again: the rollout engine checks %s", Topics.NODE_EVENTS);
    }
    boolean relevant = false;
    for (ConsumerRecord<String, byte[]> record : records) {
      if (check.refusal(record.key(), record.value(), record.headers()).isEmpty()) {
        relevant |= take(record);
      }
    }
    return relevant;
  }

  /**
   * Whether a record may carry what {@link #take} folds: false only where its type attribute names
   * an event of another kind (a heartbeat, a step's progress), so such a record is neither checked
   * for its node's signature nor decoded. A record whose type cannot be read this way is decoded as
   * before, and the decode decides.
   */
  static boolean mayMatter(byte[] value) {
    return RecordTypePeek.of(value).map(type -> FOLDED.contains(type.payload())).orElse(true);
  }

  private boolean take(ConsumerRecord<String, byte[]> record) {
    Envelope<FleetEvent> envelope;
    try {
      envelope = EventCodec.decode(record.value());
    } catch (EventRejectedException e) {
      return false; // the projection dead-letters it with the reason
    }
    if (!(envelope.data() instanceof NodeEvent)) {
      return false;
    }
    NodePosition at = NodePosition.of(envelope);
    NodePosition projectedAt = projected.getOrDefault(record.key(), Projected.NONE).position();
    LiveNode node = live.computeIfAbsent(record.key(), k -> new LiveNode());
    synchronized (node) {
      if (!node.position.precedes(at) || !projectedAt.precedes(at)) {
        return false; // a redelivery, a replay or an older record after a newer one: as applied
      }
      switch (envelope.data()) {
        // The projection's own fold, so the head and the projection agree on a node's result.
        case SpecApplied _, SpecRejected _, StepFailed _ ->
            node.reconcile = node.reconcile.apply((NodeEvent) envelope.data());
        case NodeRegistered registered -> {
          node.driver = registered.driverVersion();
          node.driverAt = at;
        }
        case GpuInventoryReported inventory -> {
          node.unhealthy = unhealthy(inventory.gpus());
          node.healthAt = at;
        }
        default -> {
          return false;
        }
      }
      node.position = at;
    }
    return true;
  }

  private static String unhealthy(List<Gpu> gpus) {
    List<String> sick = new ArrayList<>();
    for (Gpu gpu : gpus) {
      if (gpu.health() != GpuHealth.HEALTHY) {
        sick.add("GPU " + gpu.index() + " " + gpu.health().wireName());
      }
    }
    return sick.isEmpty() ? null : String.join(", ", sick);
  }

  /**
   * Nodes this engine has just started: their results can only come after this call, from the head
   * of the log, so the projection is not read for them.
   */
  public void watchStarted(Collection<String> nodes) {
    watched.addAll(nodes);
  }

  /** Nodes to follow from now on; the ones not yet read from the projection are read now. */
  public void watch(Collection<String> nodes) {
    List<String> fresh = new ArrayList<>();
    for (String node : nodes) {
      if (watched.add(node)) {
        fresh.add(node);
      }
    }
    if (!fresh.isEmpty()) {
      refresh(fresh);
    }
  }

  public void unwatch(Collection<String> nodes) {
    for (String node : nodes) {
      watched.remove(node);
      live.remove(node);
      projected.remove(node);
    }
  }

  /** Reads these nodes from the projection again. */
  public void refresh(Collection<String> nodes) {
    if (nodes.isEmpty()) {
      return;
    }
    RolloutReadModel.progress(pool, nodes)
        .await()
        .atMost(timeout)
        .forEach(row -> projected.put(row.node(), new Projected(observation(row), row.position())));
  }

  private static Observation observation(NodeProgress row) {
    long failed = Math.max(row.failureGeneration(), row.rejectionGeneration());
    FailureCause reason = null;
    if (failed > 0 && row.rejectionGeneration() >= row.failureGeneration()) {
      reason =
          new FailureCause.AgentRefused(
              row.rejectionGeneration(), row.rejectionCode(), row.rejectionReason());
    } else if (failed > 0) {
      reason =
          new FailureCause.StepFailed(row.failureStep(), row.failureReason(), row.failureHolder());
    }
    return new Observation(
        row.appliedGeneration(), failed, reason, row.driverVersion(), row.unhealthy());
  }

  /**
   * The freshest view of a node: the head of the log over the projection, where the head is newer.
   * The driver and the health are the newest the node reported: the head's only where it read them
   * after the projection's position, which otherwise holds them or newer ones.
   */
  public Observation of(String node) {
    Projected projection = projected.getOrDefault(node, Projected.NONE);
    Observation base = projection.observation();
    LiveNode head = live.get(node);
    if (head == null) {
      return base;
    }
    synchronized (head) {
      ReconcileState.Failure failure = head.reconcile.failure();
      ReconcileState.Rejected rejection = head.reconcile.rejection();
      long failureGeneration = failure == null ? 0 : failure.generation();
      long rejectionGeneration = rejection == null ? 0 : rejection.generation();
      long failedGeneration = Math.max(failureGeneration, rejectionGeneration);
      FailureCause reason = null;
      if (failedGeneration > 0 && rejectionGeneration >= failureGeneration) {
        reason =
            new FailureCause.AgentRefused(
                rejectionGeneration, rejection.code(), rejection.reason());
      } else if (failedGeneration > 0) {
        reason =
            new FailureCause.StepFailed(
                failure.kind().wireName(), failure.reason(), failure.holder());
      }
      boolean headFailure = failedGeneration > 0 && failedGeneration >= base.failedGeneration();
      return new Observation(
          Math.max(head.reconcile.appliedGeneration(), base.appliedGeneration()),
          headFailure ? failedGeneration : base.failedGeneration(),
          headFailure ? reason : base.failure(),
          projection.position().precedes(head.driverAt) ? head.driver : base.driverVersion(),
          projection.position().precedes(head.healthAt) ? head.unhealthy : base.unhealthy());
    }
  }

  @Override
  public void close() {
    running = false;
    KafkaConsumer<String, byte[]> current = consumer;
    if (current != null) {
      current.wakeup();
    }
    if (thread != null) {
      try {
        thread.join(Duration.ofSeconds(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A node as the projection showed it when last read, and the projection's position then. */
  private record Projected(Observation observation, NodePosition position) {
    static final Projected NONE = new Projected(Observation.NONE, NodePosition.NONE);
  }

  /**
   * A watched node as the head of the log shows it: the position of the newest record taken, and
   * that of the records its driver and health came from ({@link NodePosition#NONE} for none yet).
   */
  private static final class LiveNode {
    NodePosition position = NodePosition.NONE;
    ReconcileState reconcile = ReconcileState.NONE;
    String driver;
    NodePosition driverAt = NodePosition.NONE;
    String unhealthy;
    NodePosition healthAt = NodePosition.NONE;
  }
}
