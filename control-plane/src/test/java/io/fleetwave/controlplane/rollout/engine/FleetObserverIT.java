package io.fleetwave.controlplane.rollout.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.core.projection.ReconcileState;
import io.fleetwave.core.rollout.decide.Observation;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import io.fleetwave.testsupport.kafka.PlainProducers;
import io.fleetwave.testsupport.logging.LogRecords;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The engine's direct view of fleet.node-events, against a real broker (no projection reads). */
class FleetObserverIT {
  private static final Duration BOUND = Duration.ofSeconds(20);
  private static EmbeddedKafka kafka;
  private static KafkaProducer<String, byte[]> producer;
  private static long seq;

  @BeforeAll
  static void broker() {
    kafka = EmbeddedKafka.start();
    kafka.createTopics(4, Topics.NODE_EVENTS);
    producer = PlainProducers.ofBytes(kafka.bootstrapServers());
  }

  @AfterAll
  static void stop() {
    producer.close();
    kafka.close();
  }

  private static FleetObserver observer(AtomicInteger wakeUps) {
    return observer(wakeUps, new java.util.concurrent.ConcurrentLinkedQueue<>());
  }

  /**
   * An observer that notes in {@code checked} the node of each record it checks the identity of.
   */
  private static FleetObserver observer(AtomicInteger wakeUps, java.util.Queue<String> checked) {
    FleetObserver observer =
        new FleetObserver(
            Map.of("bootstrap.servers", kafka.bootstrapServers()),
            null,
            BOUND,
            wakeUps::incrementAndGet,
            // Identity is not what these tests are about: every record counts as its node's.
            batch ->
                (node, value, headers) -> {
                  checked.add(node);
                  return java.util.Optional.empty();
                });
    observer.start();
    return observer;
  }

  private static void publish(String node, NodeEvent event) throws Exception {
    Envelope<NodeEvent> envelope =
        Envelope.of(URI.create("test:agent"), node, Instant.now(), 1, seq++, event);
    producer
        .send(new ProducerRecord<>(Topics.NODE_EVENTS, node, EventCodec.encode(envelope)))
        .get();
  }

  @Test
  void aWatchedNodesResultsArriveAndWakeTheEngineWhileOthersAreNotRead() throws Exception {
    AtomicInteger wakeUps = new AtomicInteger();
    try (FleetObserver observer = observer(wakeUps)) {
      observer.watchStarted(List.of("obs-a", "obs-b"));

      publish("obs-a", new SpecApplied(3));
      producer
          .send(
              new ProducerRecord<>(
                  Topics.NODE_EVENTS,
                  "obs-b",
                  "{not a cloud event".getBytes(StandardCharsets.UTF_8)))
          .get();
      publish(
          "obs-b",
          new StepFailed(
              4,
              new PlannedStep(2, StepKind.RESET_GPU, 0, "reset GPU 0", 30_000),
              "compute process 4711 (train.py) runs",
              "process 4711",
              12));
      publish("obs-c", new SpecApplied(9));

      await("obs-a applied and obs-b failed, read from the head of the log")
          .atMost(BOUND)
          .untilAsserted(
              () -> {
                assertThat(observer.of("obs-a").appliedGeneration()).isEqualTo(3);
                assertThat(observer.of("obs-b").failedGeneration()).isEqualTo(4);
              });
      assertThat(observer.of("obs-b").failure())
          .isInstanceOf(io.fleetwave.events.rollout.FailureCause.StepFailed.class);
      assertThat(observer.of("obs-b").failure().describe())
          .isEqualTo(
              "reset-gpu failed: compute process 4711 (train.py) runs (held by process 4711)");
      assertThat(observer.of("obs-c")).isEqualTo(Observation.NONE);
      assertThat(wakeUps.get()).isPositive();
    }
  }

  @Test
  void aWatchedNodesHeartbeatsAndProgressAreNeitherCheckedNorDecoded() throws Exception {
    java.util.Queue<String> checked = new java.util.concurrent.ConcurrentLinkedQueue<>();
    PlannedStep step = new PlannedStep(1, StepKind.SET_MIG_MODE, 0, "enable MIG on GPU 0", 30_000);
    try (FleetObserver observer = observer(new AtomicInteger(), checked)) {
      observer.watchStarted(List.of("obs-busy"));
      publish("obs-busy", new Heartbeat("boot-1", 60));
      publish("obs-busy", new SpecAccepted(6, List.of(step)));
      publish("obs-busy", new StepStarted(6, step));
      publish("obs-busy", new StepSucceeded(6, step, 12));
      publish("obs-busy", new Heartbeat("boot-1", 120));
      publish("obs-busy", new SpecApplied(6));

      await("obs-busy's result read from the head of the log")
          .atMost(BOUND)
          .until(() -> observer.of("obs-busy").appliedGeneration() == 6);
      assertThat(checked)
          .as("records the observer checked (and then decoded): its result only, of six")
          .containsExactly("obs-busy");
    }
  }

  @Test
  void afterARewindResultsPublishedBeforeTheEngineStartedAreRead() throws Exception {
    Instant before = Instant.now().minusSeconds(1);
    publish("obs-early", new SpecRejected(2, "cmd-1", "unplannable", "3 x 3g.40gb do not fit"));
    AtomicInteger wakeUps = new AtomicInteger();
    try (FleetObserver observer = observer(wakeUps)) {
      observer.watchStarted(List.of("obs-early"));
      publish("obs-marker", new SpecApplied(1));
      observer.watchStarted(List.of("obs-marker"));
      publish("obs-marker", new SpecApplied(2));
      await("the observer reads from the end")
          .atMost(BOUND)
          .until(() -> observer.of("obs-marker").appliedGeneration() == 2);
      assertThat(observer.of("obs-early").failedGeneration())
          .as("published before the observer started: not seen from the end of the log")
          .isZero();

      observer.rewindTo(before);

      await("the refusal published before the start is read after the rewind")
          .atMost(BOUND)
          .until(() -> observer.of("obs-early").failedGeneration() == 2);
      assertThat(observer.of("obs-early").failure())
          .isEqualTo(
              new io.fleetwave.events.rollout.FailureCause.AgentRefused(
                  2, "unplannable", "3 x 3g.40gb do not fit"));
      assertThat(observer.of("obs-early").failure().describe())
          .isEqualTo("the agent refused generation 2 (unplannable): 3 x 3g.40gb do not fit");
    }
  }

  /**
   * A takeover asks for a rewind as soon as the broker answers it, which may be before the broker
   * answers the observer's lookup: the lookup runs out, and the observer asks again instead of
   * ending (it ended, and the engine read results from the projection only until a restart).
   */
  @Test
  void aRewindAskedWhileTheBrokerIsAwayRunsOnceItIsBackAndTheHeadIsStillFollowed()
      throws Exception {
    try (EmbeddedKafka away = EmbeddedKafka.start();
        LogRecords warnings = new LogRecords(FleetObserver.class)) {
      away.createTopics(1, Topics.NODE_EVENTS);
      FleetObserver observer =
          new FleetObserver(
              Map.of("bootstrap.servers", away.bootstrapServers()),
              null,
              Duration.ofSeconds(1), // the lookup's bound: runs out fast while the broker is away
              () -> {},
              batch -> (node, value, headers) -> java.util.Optional.empty());
      try (observer) {
        observer.start();
        observer.watchStarted(List.of("obs-away"));
        Instant before = Instant.now();
        away.stopBroker();
        observer.rewindTo(before);
        await("the rewind's lookup ran out while the broker was away (the observer says so)")
            .atMost(BOUND)
            .until(() -> !warnings.records().isEmpty());
        away.restartBroker();
        try (KafkaProducer<String, byte[]> back = PlainProducers.ofBytes(away.bootstrapServers())) {
          Envelope<NodeEvent> applied =
              Envelope.of(
                  URI.create("test:agent"), "obs-away", Instant.now(), 1, 1, new SpecApplied(7));
          back.send(
                  new ProducerRecord<>(Topics.NODE_EVENTS, "obs-away", EventCodec.encode(applied)))
              .get(BOUND.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        }
        await("a result published after the broker came back, read from the head")
            .atMost(BOUND)
            .until(() -> observer.of("obs-away").appliedGeneration() == 7);
        assertThat(warnings.lines())
            .as("said once, not once per poll")
            .filteredOn(l -> l.contains("cannot look up"))
            .hasSize(1);
      }
    }
  }

  @Test
  void theHeadFoldsResultsAsTheProjectionDoes() throws Exception {
    StepFailed failedThenRetried =
        new StepFailed(
            5,
            new PlannedStep(1, StepKind.SET_MIG_MODE, 0, "enable MIG on GPU 0", 30_000),
            "GPU 0 busy",
            null,
            7);
    List<NodeEvent> events = List.of(failedThenRetried, new SpecApplied(5));
    ReconcileState projected = ReconcileState.NONE;
    for (NodeEvent event : events) {
      projected = projected.apply(event);
    }
    try (FleetObserver observer = observer(new AtomicInteger())) {
      observer.watchStarted(List.of("obs-retried"));
      for (NodeEvent event : events) {
        publish("obs-retried", event);
      }

      await("the node's events read from the head")
          .atMost(BOUND)
          .until(() -> observer.of("obs-retried").appliedGeneration() == 5);
      assertThat(projected.failure()).as("the projection's fold").isNull();
      assertThat(observer.of("obs-retried").failedGeneration())
          .as("a failure its own generation's SpecApplied followed is over, as in the projection")
          .isZero();
      assertThat(observer.of("obs-retried").failure()).isNull();
    }
  }
}
