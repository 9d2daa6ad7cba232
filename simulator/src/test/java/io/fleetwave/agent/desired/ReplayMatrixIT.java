package io.fleetwave.agent.desired;

import static io.fleetwave.agent.desired.SignedCommands.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.command.NodeCommand;
import io.fleetwave.events.command.Reprobe;
import io.fleetwave.events.command.ResetGpu;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.payload.FleetEvent;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.SimulatedNode;
import io.fleetwave.simulator.TestFleets;
import io.fleetwave.testsupport.kafka.NodeEventsReader;
import io.fleetwave.testsupport.kafka.PlainProducers;
import io.fleetwave.testsupport.services.KafkaExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The replay matrix (issue 12), against a real broker with simulated agents of a writable host
 * (ubuntu: accepted generations kept in its state directory) and a read-only one (Talos: nothing
 * kept, the newest spec learned from the compacted topic), each after an agent restart and after a
 * reboot: an older signed spec, a replayed one-shot command, a spec on the commands stream, an
 * unsigned tombstone, an expired command and a command dated beyond the clock skew change nothing
 * on the node, each is reported as a SpecRejected with its reason, and the replayed spec left as
 * the latest record of the topic does not roll the node back at the next start either.
 */
@ExtendWith(KafkaExtension.class)
class ReplayMatrixIT {
  private static final String EVENTS = "replay.node-events";
  private static final String DESIRED = "replay.node-desired";
  private static final String COMMANDS = "replay.node-commands";
  private static final Duration WAIT = Duration.ofSeconds(60);

  private static final String FLEET =
      """
      nodes:
        - {name-prefix: ubuntu-a100, count: 3, host: ubuntu, driver-version: "580.95.05",
           gpus: [{model: "0x20B210DE", count: 1}]}
        - {name-prefix: talos-h200, count: 3, host: talos, driver-version: "580.95.05",
           gpus: [{model: "0x233510DE", count: 1}]}
      """;

  private static final Map<String, List<GpuSpec>> LAYOUTS =
      Map.of(
          "ubuntu",
          List.of(
              new GpuSpec(0, true, Map.of("3g.40gb", 1, "2g.20gb", 1, "1g.10gb", 2), 0, Map.of()),
              new GpuSpec(0, true, Map.of("3g.40gb", 2), 0, Map.of())),
          "talos",
          List.of(
              new GpuSpec(0, true, Map.of("3g.71gb", 1, "2g.35gb", 1, "1g.18gb", 2), 0, Map.of()),
              new GpuSpec(0, true, Map.of("3g.71gb", 2), 0, Map.of())));

  @TempDir static Path stateRoot;
  private static KafkaBroker kafka;
  private static CommandSigner signer;
  private static SpecFollowing following;
  private static SimulatedFleet fleet;
  private static SignedCommands control;
  private static KafkaProducer<String, byte[]> raw;
  private static NodeEventsReader log;

  @BeforeAll
  static void startFleet() {
    kafka.createTopics(2, EVENTS, COMMANDS);
    kafka.createTopics(2, KafkaBroker.compacted(), DESIRED);
    signer = CommandSigner.generate();
    following = following(signer, DESIRED);
    fleet = start(following);
    control = new SignedCommands(kafka.bootstrapServers(), signer);
    raw = PlainProducers.ofBytes(kafka.bootstrapServers());
    log = new NodeEventsReader(kafka.bootstrapServers(), EVENTS);
  }

  private static SpecFollowing following(CommandSigner signer, String desiredTopic) {
    return TestFleets.onTopics(signer.verifier(), desiredTopic, COMMANDS);
  }

  private static SimulatedFleet start(SpecFollowing following) {
    return TestFleets.following(kafka, FLEET, "ReplayMatrixIT", EVENTS, following, stateRoot);
  }

  @AfterAll
  static void stopFleet() throws Exception {
    TestFleets.closeAll(fleet, log, control, raw);
  }

  static Stream<Arguments> matrix() {
    Consumer<SimulatedNode> restart =
        node -> {
          node.crash();
          node.restart();
        };
    Consumer<SimulatedNode> reboot = SimulatedNode::reboot;
    return Stream.of(
        Arguments.of("ubuntu-a100-0", "restart", restart),
        Arguments.of("ubuntu-a100-1", "reboot", reboot),
        Arguments.of("talos-h200-0", "restart", restart),
        Arguments.of("talos-h200-1", "reboot", reboot));
  }

  @ParameterizedTest(name = "{0} after an agent {1}")
  @MethodSource("matrix")
  void noReplayedExpiredFutureMisroutedOrUnsignedRecordChangesTheNode(
      String name, String disruption, Consumer<SimulatedNode> disrupt) {
    SimulatedNode node = fleet.node(name).orElseThrow();
    List<GpuSpec> layouts = LAYOUTS.get(name.substring(0, name.indexOf('-')));
    CommandEnvelope first = desired(spec(name, 1, layouts.get(0)));
    awaitApplied(node, 1);
    desired(spec(name, 2, layouts.get(1)));
    awaitApplied(node, 2);
    Instant now = Instant.now();
    CommandEnvelope reprobe = command(name, new Reprobe(5, now, now.plusSeconds(600)));
    await().atMost(WAIT).until(() -> log.of(name, NodeRegistered.class).size() >= 2);

    disrupt.accept(node);
    awaitApplied(node, 2);
    List<Gpu> converged = node.gpus().inventory();
    assertThat(profiles(converged)).isEqualTo(profiles(layouts.get(1)));
    long mark = lastSeq(node);
    int registered = log.of(name, NodeRegistered.class).size();

    // An older signed spec, exactly as the control plane once sent it.
    control.send(DESIRED, first);
    awaitRejected(name, "replayed", 1, "generation 1 is not newer than the applied generation");
    // A one-shot command replayed into the new run.
    control.send(COMMANDS, reprobe);
    awaitRejected(name, "replayed", 5, "");
    assertThat(
            log.of(name, SpecRejected.class).stream()
                .filter(r -> r.generation() == 5)
                .map(SpecRejected::reason))
        .as("writable hosts keep the last command generation; read-only ones know the run start")
        .allMatch(
            reason ->
                reason.contains(
                    name.startsWith("ubuntu")
                        ? "generation 5 is not newer than the applied generation 5"
                        : "before this agent run started"));
    // A validly signed spec put on the commands stream.
    control.send(COMMANDS, signed(name, apply(spec(name, 3, layouts.get(0)))));
    awaitRejected(name, "wrong-stream", 3, "arrived on the one-shot-command stream");
    // An unsigned tombstone.
    tombstone(name);
    awaitRejected(name, "unsigned", 0, "tombstone");
    // An expired command, and one dated beyond the clock-skew tolerance.
    Instant later = Instant.now();
    control.send(
        COMMANDS,
        signed(name, new ResetGpu(0, 9, later.minusSeconds(7200), later.minusSeconds(3600))));
    awaitRejected(name, "expired", 9, "expired at");
    control.send(
        COMMANDS,
        signed(name, new ResetGpu(0, 10, later.plusSeconds(600), later.plusSeconds(1200))));
    awaitRejected(name, "not-yet-valid", 10, "clock-skew tolerance PT1M");

    assertUnchanged(node, mark, converged);
    assertThat(log.of(name, NodeRegistered.class)).hasSize(registered);

    // The replayed generation 1 is now the latest record of the node in the topic (the tombstone
    // deleted nothing): the next start still ends at generation 2.
    disrupt.accept(node);
    long restarted = node.epoch();
    awaitApplied(node, 2);
    awaitRejected(name, "replayed", 1, "generation 1 is not newer", restarted);
    assertThat(log.payloads(name, restarted))
        .noneMatch(e -> e instanceof SpecAccepted a && a.generation() != 2)
        .noneMatch(e -> e instanceof StepStarted s && s.generation() != 2);
    assertThat(profiles(node.gpus().inventory())).isEqualTo(profiles(layouts.get(1)));
  }

  /**
   * What only the state directory can tell: the topic lost the newer spec (compaction after a
   * replay, a topic recreated from an old backup) and holds only an older signed one. The writable
   * host refuses it from its kept floor; the read-only host has nothing to compare with and accepts
   * it (the documented limit, which Kafka ACLs on the topic close).
   */
  @Test
  void aWritableHostKeepsItsFloorWhenTheTopicHoldsOnlyAnOlderSpec() throws Exception {
    String writable = "ubuntu-a100-2";
    String readOnly = "talos-h200-2";
    List<GpuSpec> ubuntu = LAYOUTS.get("ubuntu");
    List<GpuSpec> talos = LAYOUTS.get("talos");
    CommandEnvelope writableOld = desired(spec(writable, 1, ubuntu.get(0)));
    CommandEnvelope readOnlyOld = desired(spec(readOnly, 1, talos.get(0)));
    awaitApplied(fleet.node(writable).orElseThrow(), 1);
    awaitApplied(fleet.node(readOnly).orElseThrow(), 1);
    desired(spec(writable, 2, ubuntu.get(1)));
    desired(spec(readOnly, 2, talos.get(1)));
    awaitApplied(fleet.node(writable).orElseThrow(), 2);
    awaitApplied(fleet.node(readOnly).orElseThrow(), 2);
    assertThat(
            Files.readAllLines(
                fleet
                    .node(writable)
                    .orElseThrow()
                    .stateDirectory()
                    .orElseThrow()
                    .resolve(ReplayFloor.NAME)))
        .contains("spec=2");

    String lostTopic = "replay.node-desired-lost";
    kafka.createTopics(1, KafkaBroker.compacted(), lostTopic);
    control.send(lostTopic, writableOld);
    control.send(lostTopic, readOnlyOld);
    fleet.nodes().forEach(SimulatedNode::crash);
    try (SimulatedFleet again = start(following(signer, lostTopic))) {
      long epoch = again.node(writable).orElseThrow().epoch();
      awaitRejected(writable, "replayed", 1, "not newer than the applied generation 1", epoch);
      assertThat(log.payloads(writable, epoch)).noneMatch(e -> e instanceof SpecAccepted);

      awaitApplied(again.node(readOnly).orElseThrow(), 1);
    } finally {
      fleet.nodes().forEach(SimulatedNode::restart);
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static CommandEnvelope signed(String node, NodeCommand command) {
    return signer.sign(SignedCommands.unsigned(node, command));
  }

  private static ApplyNodeSpec apply(io.fleetwave.events.spec.NodeSpec spec) {
    return SignedCommands.apply(spec);
  }

  private static CommandEnvelope desired(io.fleetwave.events.spec.NodeSpec spec) {
    return control.send(DESIRED, signed(spec.node(), apply(spec)));
  }

  private static CommandEnvelope command(String node, NodeCommand command) {
    return control.send(COMMANDS, signed(node, command));
  }

  private static void tombstone(String node) {
    try {
      raw.send(new ProducerRecord<>(DESIRED, node, null)).get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot publish a tombstone for " + node + ": " + e, e);
    }
  }

  private static void awaitApplied(SimulatedNode node, long generation) {
    long epoch = node.epoch();
    await("SpecApplied(" + generation + ") of " + node.name() + " in epoch " + epoch)
        .atMost(WAIT)
        .until(() -> log.payloads(node.name(), epoch).contains(new SpecApplied(generation)));
  }

  private static void awaitRejected(String node, String code, long generation, String reason) {
    awaitRejected(node, code, generation, reason, fleet.node(node).orElseThrow().epoch());
  }

  private static void awaitRejected(
      String node, String code, long generation, String reason, long epoch) {
    await("SpecRejected(" + code + ", " + generation + ") of " + node + " in epoch " + epoch)
        .atMost(WAIT)
        .until(
            () ->
                log.payloads(node, epoch).stream()
                    .anyMatch(
                        e ->
                            e instanceof SpecRejected r
                                && r.code().equals(code)
                                && r.generation() == generation
                                && r.reason().contains(reason)));
  }

  /** Since the mark: no spec accepted, no step started, the GPUs as they were. */
  private static void assertUnchanged(SimulatedNode node, long mark, List<Gpu> before) {
    List<FleetEvent> since =
        log.of(node.name()).stream()
            .filter(e -> e.epoch() == node.epoch() && e.seq() > mark)
            .map(Envelope::data)
            .toList();
    assertThat(since)
        .noneMatch(SpecAccepted.class::isInstance)
        .noneMatch(StepStarted.class::isInstance)
        .noneMatch(NodeRegistered.class::isInstance)
        .filteredOn(SpecRejected.class::isInstance)
        .hasSize(6);
    assertThat(node.gpus().inventory()).isEqualTo(before);
  }

  private static long lastSeq(SimulatedNode node) {
    return log.of(node.name()).stream()
        .filter(e -> e.epoch() == node.epoch())
        .mapToLong(Envelope::seq)
        .max()
        .orElse(0);
  }

  private static List<String> profiles(List<Gpu> gpus) {
    return gpus.getFirst().instances().stream().map(GpuInstance::profile).sorted().toList();
  }

  private static List<String> profiles(GpuSpec layout) {
    return layout.instances().entrySet().stream()
        .flatMap(e -> java.util.Collections.nCopies(e.getValue(), e.getKey()).stream())
        .sorted()
        .toList();
  }
}
