package io.fleetwave.agent.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fleetwave.agent.AgentSettings;
import io.fleetwave.agent.NodeAgent;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.node.AgentStopping;
import io.fleetwave.events.node.EventsDropped;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.payload.FleetEvent;
import io.fleetwave.simulator.SimulatedGpuBackend;
import io.fleetwave.testsupport.kafka.NodeEventsReader;
import io.fleetwave.testsupport.kafka.NodeEventsReader.Received;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agents against a real broker that goes away for longer than every client timeout (the producer's
 * delivery timeout is the production 30 s): nothing they publish meanwhile is lost, reordered or
 * applied twice. {@code -Dfleetwave.outage.seconds=300} runs the outage for five minutes.
 */
class AgentBrokerOutageIT {
  private static final Duration OUTAGE =
      Duration.ofSeconds(Long.getLong("fleetwave.outage.seconds", 70));
  private static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration HEARTBEAT = Duration.ofSeconds(1);
  private static final String TOPIC = "outage.node-events";
  private static final String EPOCH_TOPIC = "outage.epochs";
  private static final long SMALL_QUEUE = 16 * 1024;

  private static EmbeddedKafka kafka;
  private static ScheduledExecutorService scheduler;
  @TempDir static Path state;

  @BeforeAll
  static void broker() {
    kafka = EmbeddedKafka.start();
    kafka.createTopics(4, TOPIC);
    kafka.createTopics(1, EPOCH_TOPIC);
    scheduler = Executors.newScheduledThreadPool(2);
  }

  @AfterAll
  static void stop() {
    scheduler.shutdownNow();
    kafka.close();
  }

  private static EventPublisher publisher(String topic) {
    return new EventPublisher(
        new EventPublisher.Settings(
            kafka.bootstrapServers(), topic, DELIVERY_TIMEOUT, Duration.ofSeconds(10), Map.of()));
  }

  private static SimulatedGpuBackend gpus(String node) {
    GpuCatalog catalog = GpuCatalog.bundled();
    return new SimulatedGpuBackend(
        node,
        "580.95.05",
        List.of(catalog.find("H200").orElseThrow(), catalog.find("H200").orElseThrow()),
        false);
  }

  private static NodeRegistered facts(String node, HostKind kind) {
    return io.fleetwave.testfixtures.events.NodeRegisteredBuilder.forHost(node, kind).build();
  }

  private static NodeAgent agent(
      String node,
      HostKind kind,
      SimulatedGpuBackend gpus,
      Clock clock,
      NodeAgent.Publishing publishing) {
    NodeAgent agent =
        new NodeAgent(
            facts(node, kind),
            gpus,
            gpus::bootId,
            scheduler,
            new AgentSettings(HEARTBEAT, URI.create("fleetwave:agent/" + node), clock),
            publishing);
    gpus.onChange(agent::inventoryMayHaveChanged);
    return agent;
  }

  private static NodeAgent.Publishing publishing(
      EventPublisher publisher, Outbox outbox, long previousEpoch, LongConsumer epochChosen) {
    return new NodeAgent.Publishing(publisher, outbox, previousEpoch, epochChosen);
  }

  @Test
  void everyEventOfALongOutageArrivesInOrderOnceAndAFullQueueDeclaresItsGap() throws Exception {
    try (EventPublisher publisher = publisher(TOPIC);
        NodeEventsReader reader = new NodeEventsReader(kafka.bootstrapServers(), TOPIC)) {
      Map<String, SimulatedGpuBackend> gpus = new HashMap<>();
      for (String node : List.of("spooled-0", "queued-0", "bounded-0")) {
        gpus.put(node, gpus(node));
      }
      NodeAgent spooled =
          agent(
              "spooled-0",
              HostKind.UBUNTU,
              gpus.get("spooled-0"),
              Clock.systemUTC(),
              publishing(
                  publisher,
                  SpoolFile.open(state.resolve("spooled-0"), SpoolFile.DEFAULT_LIMIT_BYTES),
                  0,
                  e -> {}));
      NodeAgent queued =
          agent(
              "queued-0",
              HostKind.TALOS,
              gpus.get("queued-0"),
              Clock.systemUTC(),
              publishing(
                  publisher, new MemoryOutbox(MemoryOutbox.DEFAULT_LIMIT_BYTES), 0, e -> {}));
      NodeAgent bounded =
          agent(
              "bounded-0",
              HostKind.TALOS,
              gpus.get("bounded-0"),
              Clock.systemUTC(),
              publishing(publisher, new MemoryOutbox(SMALL_QUEUE), 0, e -> {}));
      List<NodeAgent> agents = List.of(spooled, queued, bounded);
      agents.forEach(NodeAgent::start);
      await("every agent registered")
          .atMost(Duration.ofSeconds(60))
          .until(() -> agents.stream().allMatch(a -> !reader.of(a.nodeName()).isEmpty()));

      kafka.stopBroker();
      Instant down = Instant.now();
      // A state change right away, and the start of a run that has to learn its epoch.
      gpus.get("spooled-0").setMigMode(0, true);
      gpus.get("queued-0").setMigMode(0, true);
      assertThatThrownBy(
              () ->
                  LastEpochOnTopic.find(
                      kafka.bootstrapServers(),
                      TOPIC,
                      "queued-0",
                      Map.of(),
                      Duration.ofSeconds(3),
                      Optional.empty()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("could not read the last epoch of node queued-0 from " + TOPIC)
          .hasMessageContaining("within PT3S");
      // Past the delivery timeout the first send has failed: a state change after that failure
      // must still come after everything before it.
      await("the first delivery timeout to pass with events held")
          .atMost(DELIVERY_TIMEOUT.plusSeconds(30))
          .until(
              () ->
                  Duration.between(down, Instant.now()).compareTo(DELIVERY_TIMEOUT.plusSeconds(5))
                          > 0
                      && publisher.failed() > 0);
      gpus.get("spooled-0").setMigMode(1, true);
      gpus.get("queued-0").setMigMode(1, true);
      spooled.publish(new GateHeld(3, "after the first failed delivery"));
      // The broker stays down for the whole outage: what is measured is that nothing expires.
      await("the outage to last " + OUTAGE)
          .pollInterval(Duration.ofSeconds(1))
          .atMost(OUTAGE.plusSeconds(30))
          .until(() -> Duration.between(down, Instant.now()).compareTo(OUTAGE) >= 0);
      int heldBySpool = spooled.undelivered();
      int heldInMemory = queued.undelivered();
      assertThat(heldBySpool).isGreaterThan((int) (OUTAGE.toSeconds() / 2));
      assertThat(heldInMemory).isGreaterThan((int) (OUTAGE.toSeconds() / 2));
      assertThat(Files.size(state.resolve("spooled-0").resolve(SpoolFile.NAME))).isPositive();
      assertThat(bounded.undelivered()).isLessThan(heldInMemory);

      kafka.restartBroker();
      Instant up = Instant.now();
      await("every held event delivered")
          .atMost(Duration.ofSeconds(120))
          .until(() -> agents.stream().allMatch(a -> a.undelivered() == 0));
      Duration drained = Duration.between(up, Instant.now());
      // The gap is declared at the next event once the queue has drained: a heartbeat away.
      await("the bounded queue to declare its gap")
          .atMost(Duration.ofSeconds(30))
          .until(() -> !reader.of("bounded-0", EventsDropped.class).isEmpty());
      for (NodeAgent agent : agents) {
        agent.stop("test done").get(60, TimeUnit.SECONDS);
      }
      await("every agent's AgentStopping on the topic")
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  agents.stream()
                      .allMatch(a -> !reader.of(a.nodeName(), AgentStopping.class).isEmpty()));
      System.out.printf(
          "FIGURES outage=%ss held: spool=%d memory=%d bounded=%d; drained %s after the"
              + " broker came back; failed sends=%d%n",
          OUTAGE.toSeconds(), heldBySpool, heldInMemory, SMALL_QUEUE, drained, publisher.failed());

      List<Received> records = reader.poll();
      for (String node : List.of("spooled-0", "queued-0")) {
        List<Envelope<FleetEvent>> applied = appliedInOrder(records, node);
        assertThat(applied.getLast().data()).isInstanceOf(AgentStopping.class);
        assertThat(applied).noneMatch(e -> e.data() instanceof EventsDropped);
        assertThat(applied.stream().filter(e -> e.data() instanceof Heartbeat).count())
            .isGreaterThanOrEqualTo(OUTAGE.toSeconds() - 5);
        List<List<MigMode>> inventories =
            applied.stream()
                .map(Envelope::data)
                .filter(GpuInventoryReported.class::isInstance)
                .map(e -> ((GpuInventoryReported) e).gpus().stream().map(Gpu::migMode).toList())
                .toList();
        // Both changes made while the broker was away, in the order they were made.
        assertThat(inventories)
            .containsSubsequence(
                List.of(MigMode.DISABLED, MigMode.DISABLED),
                List.of(MigMode.ENABLED, MigMode.DISABLED),
                List.of(MigMode.ENABLED, MigMode.ENABLED));
      }

      List<Envelope<FleetEvent>> bounds = appliedInOrder(records, "bounded-0");
      List<Envelope<FleetEvent>> gaps =
          bounds.stream().filter(e -> e.data() instanceof EventsDropped).toList();
      assertThat(gaps).hasSize(1);
      EventsDropped gap = (EventsDropped) gaps.getFirst().data();
      assertThat(gap.count()).isPositive();
      assertThat(gap.reason()).contains("memory queue (bound " + SMALL_QUEUE + " bytes) was full");
      int at = bounds.indexOf(gaps.getFirst());
      assertThat(gaps.getFirst().seq()).isEqualTo(gap.toSeq() + 1);
      assertThat(bounds.get(at - 1).seq()).isEqualTo(gap.fromSeq() - 1);
      assertThat(bounds.get(at + 1).data()).isInstanceOf(NodeRegistered.class);
      assertThat(bounds.get(at + 2).data()).isInstanceOf(GpuInventoryReported.class);
    }
  }

  @Test
  void aNewRunDeliversWhatACrashedRunLeftInTheSpoolBeforeItsOwnEvenWithTheClockSetBack()
      throws Exception {
    Path directory = state.resolve("crashed-0");
    EpochFile epochs = new EpochFile(directory);
    SimulatedGpuBackend gpus = gpus("crashed-0");
    try (EventPublisher publisher = publisher(TOPIC);
        NodeEventsReader reader = new NodeEventsReader(kafka.bootstrapServers(), TOPIC)) {
      NodeAgent first =
          agent(
              "crashed-0",
              HostKind.UBUNTU,
              gpus,
              Clock.systemUTC(),
              publishing(
                  publisher,
                  SpoolFile.open(directory, SpoolFile.DEFAULT_LIMIT_BYTES),
                  epochs.last().orElse(0),
                  epochs::remember));
      first.start();
      await("the first run registered")
          .atMost(Duration.ofSeconds(60))
          .until(() -> !reader.of("crashed-0").isEmpty());

      kafka.stopBroker();
      first.publish(new GateHeld(1, "spooled while the broker is away"));
      await("the first run to hold events")
          .atMost(Duration.ofSeconds(30))
          .until(() -> first.undelivered() >= 6);
      first.crash();
      int left = SpoolFile.open(directory, SpoolFile.DEFAULT_LIMIT_BYTES).depth();
      assertThat(left).isGreaterThanOrEqualTo(6);
      kafka.restartBroker();

      // The clock went back a day while the node was down: the counter still moves on.
      Clock setBack = Clock.offset(Clock.systemUTC(), Duration.ofDays(-1));
      assertThat(NodeEventStream.nextEpoch(0, setBack)).isLessThan(first.epoch());
      NodeAgent second =
          agent(
              "crashed-0",
              HostKind.UBUNTU,
              gpus,
              setBack,
              publishing(
                  publisher,
                  SpoolFile.open(directory, SpoolFile.DEFAULT_LIMIT_BYTES),
                  epochs.last().orElse(0),
                  epochs::remember));
      assertThat(second.epoch()).isEqualTo(first.epoch() + 1);
      assertThat(epochs.last()).hasValue(second.epoch());
      second.start();
      second.stop("test done").get(60, TimeUnit.SECONDS);
      awaitStopped(reader, "crashed-0", second.epoch());

      List<Envelope<FleetEvent>> applied = appliedInOrder(reader.poll(), "crashed-0");
      List<Long> epochsInOrder = applied.stream().map(Envelope::epoch).distinct().toList();
      assertThat(epochsInOrder).containsExactly(first.epoch(), second.epoch());
      assertThat(applied)
          .filteredOn(e -> e.epoch() == first.epoch())
          .hasSizeGreaterThanOrEqualTo(left)
          .anyMatch(e -> e.data() instanceof GateHeld);
      assertThat(applied.getLast().data()).isInstanceOf(AgentStopping.class);
    }
  }

  @Test
  void aReadOnlyAgentTakesItsEpochFromTheTopicWhenTheClockWentBack() throws Exception {
    String node = "talos-epoch-0";
    try (EventPublisher publisher = publisher(EPOCH_TOPIC);
        NodeEventsReader reader = new NodeEventsReader(kafka.bootstrapServers(), EPOCH_TOPIC)) {
      OptionalLong none = lastEpochOnTopic(node);
      assertThat(none).isEmpty();
      NodeAgent first =
          agent(
              node,
              HostKind.TALOS,
              gpus(node),
              Clock.systemUTC(),
              publishing(
                  publisher, new MemoryOutbox(MemoryOutbox.DEFAULT_LIMIT_BYTES), 0, e -> {}));
      first.start();
      first.stop("restarting").get(60, TimeUnit.SECONDS);
      // Other nodes' events after it, more than the first window the search reads back.
      List<java.util.concurrent.CompletableFuture<?>> others = new ArrayList<>();
      for (int i = 0; i < 3_000; i++) {
        others.add(
            publisher.publish(
                Envelope.of(
                    URI.create("fleetwave:agent/other"),
                    "other-" + (i % 50),
                    Instant.now(),
                    Long.MAX_VALUE / 2,
                    i,
                    new Heartbeat("b", i))));
      }
      java.util.concurrent.CompletableFuture.allOf(
              others.toArray(java.util.concurrent.CompletableFuture[]::new))
          .get(60, TimeUnit.SECONDS);

      Clock setBack = Clock.offset(Clock.systemUTC(), Duration.ofDays(-1));
      long learned = lastEpochOnTopic(node).orElseThrow();
      assertThat(learned).isEqualTo(first.epoch());
      assertThat(NodeEventStream.nextEpoch(0, setBack)).isLessThan(first.epoch());
      NodeAgent second =
          agent(
              node,
              HostKind.TALOS,
              gpus(node),
              setBack,
              publishing(
                  publisher, new MemoryOutbox(MemoryOutbox.DEFAULT_LIMIT_BYTES), learned, e -> {}));
      second.start();
      second.stop("test done").get(60, TimeUnit.SECONDS);

      assertThat(second.epoch()).isEqualTo(first.epoch() + 1);
      awaitStopped(reader, node, second.epoch());
      List<Envelope<FleetEvent>> applied = appliedInOrder(reader.poll(), node);
      assertThat(applied.stream().map(Envelope::epoch).distinct())
          .containsExactly(first.epoch(), second.epoch());
    }
  }

  private static void awaitStopped(NodeEventsReader reader, String node, long epoch) {
    await("AgentStopping of " + node + " #" + epoch + " read back")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                reader.of(node).stream()
                    .anyMatch(e -> e.epoch() == epoch && e.data() instanceof AgentStopping));
  }

  /**
   * The node's records in log order as the projection applies them: a record at or before the
   * position so far is skipped, and must be a redelivery of one already seen (same id); every
   * applied one is the next seq of its run (or seq 0 of a larger epoch), except after the range an
   * EventsDropped declares.
   */
  private static List<Envelope<FleetEvent>> appliedInOrder(List<Received> records, String node) {
    List<Envelope<FleetEvent>> applied = new ArrayList<>();
    Map<String, Envelope<FleetEvent>> seen = new HashMap<>();
    long epoch = -1;
    long seq = -1;
    for (Received record : records) {
      Envelope<FleetEvent> event = record.envelope();
      if (!event.subject().equals(node)) {
        continue;
      }
      assertThat(record.key()).isEqualTo(node);
      if (!event.isAfter(epoch, seq)) {
        assertThat(seen.get(event.id()))
            .as(
                "record at offset %d is at or before #%d/%d but no redelivery",
                record.offset(), epoch, seq)
            .isEqualTo(event);
        continue;
      }
      boolean next = event.epoch() == epoch ? event.seq() == seq + 1 : event.seq() == 0;
      boolean declaredGap =
          event.epoch() == epoch
              && event.data() instanceof EventsDropped gap
              && gap.fromSeq() == seq + 1
              && gap.toSeq() + 1 == event.seq();
      assertThat(next || declaredGap)
          .as(
              "#%d/%d after #%d/%d at offset %d",
              event.epoch(), event.seq(), epoch, seq, record.offset())
          .isTrue();
      epoch = event.epoch();
      seq = event.seq();
      seen.put(event.id(), event);
      applied.add(event);
    }
    return applied;
  }

  /** What a read-only agent starting as {@code node} learns from the epoch topic. */
  private static OptionalLong lastEpochOnTopic(String node) {
    return LastEpochOnTopic.find(
        kafka.bootstrapServers(),
        EPOCH_TOPIC,
        node,
        Map.of(),
        Duration.ofSeconds(10),
        Optional.empty());
  }
}
