package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.facts.FactsCaughtUp;
import io.fleetwave.controlplane.facts.NodeControls;
import io.fleetwave.controlplane.kafka.KafkaClientConfig;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.Topics;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.common.annotation.Identifier;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * Applies every fact of fleet.control-facts to the live tables, from offset 0 at each start and
 * then as they come: so a replica holds the facts another replica recorded, and a control plane
 * started on an empty database (a lost one, migrated again) restores them by itself. Facts are few
 * (one per enrolment, revocation, re-admission) and applied once each by id, so reading them all
 * again at each start costs a read of the topic and an index lookup per fact. A fact that cannot be
 * applied (PostgreSQL away) is tried again, in order, never skipped.
 */
@ApplicationScoped
public class ControlFactFollower {
  private static final Logger LOG = Logger.getLogger(ControlFactFollower.class);
  private static final Duration APPLY_BOUND = Duration.ofSeconds(10);
  private static final Duration RETRY = Duration.ofSeconds(1);
  private static final Duration CATCH_UP_BOUND = Duration.ofSeconds(30);

  private static final Duration BACKFILL_BOUND = Duration.ofMinutes(2);

  private final ControlFacts facts;
  private final ControlFactBackfill backfill;
  private final FactsCaughtUp caughtUp;
  private final NodeControls controls;
  private final Map<String, Object> kafkaConfig;
  private volatile boolean running;
  private KafkaConsumer<String, byte[]> consumer;
  private Thread thread;

  public ControlFactFollower(
      ControlFacts facts,
      ControlFactBackfill backfill,
      FactsCaughtUp caughtUp,
      NodeControls controls,
      @Identifier("default-kafka-broker") Map<String, Object> kafkaConfig) {
    this.facts = facts;
    this.backfill = backfill;
    this.caughtUp = caughtUp;
    this.controls = controls;
    this.kafkaConfig = kafkaConfig;
  }

  /**
   * Early, so that start-up work that waits for the facts ({@link FactsCaughtUp}) finds it running.
   */
  void onStart(@Observes @Priority(100) StartupEvent event) {
    consumer =
        new KafkaConsumer<>(
            KafkaClientConfig.assigningConsumer(kafkaConfig, 500),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    running = true;
    thread = Thread.ofVirtual().name("control-fact-follower").start(this::follow);
  }

  void onStop(@Observes ShutdownEvent event) throws InterruptedException {
    running = false;
    if (consumer != null) {
      consumer.wakeup();
      thread.join(Duration.ofSeconds(10));
    }
  }

  private void follow() {
    backfillOnce();
    try {
      // One partition (Topics.CONTROL_FACTS): every fact in the order it was recorded.
      TopicPartition partition = new TopicPartition(Topics.CONTROL_FACTS, 0);
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long end = consumer.endOffsets(List.of(partition), CATCH_UP_BOUND).get(partition);
      if (end == 0) {
        caughtUp.reached();
      }
      while (running) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofSeconds(1))) {
          if (!applyUntilDone(record)) {
            return;
          }
          if (record.offset() + 1 >= end) {
            caughtUp.reached();
          }
        }
      }
    } catch (WakeupException e) {
      // stopping
    } catch (RuntimeException e) {
      LOG.errorf(
          "cannot follow %s (facts recorded by other requests are applied at the next start): %s",
          Topics.CONTROL_FACTS, e.toString());
      caughtUp.failed(e);
    } finally {
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }

  /**
   * The facts of rows from before their tables were projections, published before the topic is read
   * (so they are skipped as applied). A failure is logged: the rows stay listed, and the next start
   * publishes them.
   */
  private void backfillOnce() {
    try {
      long published = backfill.run(BACKFILL_BOUND);
      if (published > 0) {
        LOG.infof("published %d facts of rows stored before they were facts", published);
      }
    } catch (RuntimeException e) {
      LOG.errorf(
          "rows stored before they were facts not published to %s (tried again at the next"
              + " start): %s",
          Topics.CONTROL_FACTS, e.toString());
    }
  }

  /** Applies the record, trying again while PostgreSQL refuses; false when stopping first. */
  private boolean applyUntilDone(ConsumerRecord<String, byte[]> record) {
    var fact = decodeOrNull(record);
    if (fact == null) {
      return true;
    }
    while (running) {
      try {
        facts.apply(fact, ProjectionTables.LIVE.schema()).await().atMost(APPLY_BOUND);
        controls.followed(record.offset(), fact);
        return true;
      } catch (RuntimeException e) {
        LOG.warnf(
            "fact %s at offset %d of %s not applied (tried again in %d s): %s",
            fact.type(), record.offset(), Topics.CONTROL_FACTS, RETRY.toSeconds(), e.toString());
        try {
          Thread.sleep(RETRY); // PostgreSQL away: wait, then the same fact again, in order
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return false;
  }

  private static io.fleetwave.events.Envelope<io.fleetwave.events.fact.ControlFact> decodeOrNull(
      ConsumerRecord<String, byte[]> record) {
    try {
      return ControlFacts.decode(record.value());
    } catch (EventRejectedException e) {
      LOG.errorf(
          "record at offset %d of %s is not a fact this build reads, left out: %s",
          record.offset(), Topics.CONTROL_FACTS, e.getMessage());
      return null;
    }
  }
}
