package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.agent.desired.BootRecord;
import io.fleetwave.agent.desired.CommandFollower;
import io.fleetwave.agent.desired.SpecConverger;
import io.fleetwave.agent.desired.SpecFollowing;
import io.fleetwave.agent.gate.AgentGate;
import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.nvml.NvmlGpuBackend;
import io.fleetwave.agent.nvml.StubNvmlLibrary;
import io.fleetwave.agent.probe.HostProbe;
import io.fleetwave.agent.probe.HostProbeSettings;
import io.fleetwave.agent.publish.EventPublisher;
import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.CommandCodec;
import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import io.fleetwave.events.payload.FleetEvent;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import io.fleetwave.testsupport.kafka.NodeEventsReader;
import io.fleetwave.testsupport.kafka.PlainProducers;
import io.fleetwave.testsupport.services.KafkaExtension;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An NVML call that hangs in the driver (the gcc-built stand-in libnvidia-ml.so.1 blocks
 * nvmlDeviceSetMigMode on a condition variable until the test releases it) against a real broker:
 * the agent keeps heartbeating, the step fails naming the call and its bound, later calls fail fast
 * instead of piling up in the driver, and once the call returns a later step runs.
 */
@ExtendWith(KafkaExtension.class)
class HungNvmlCallIT {
  private static final String NODE = "hung-nvml-node";
  private static final String EVENTS = "it.hung-nvml.node-events";
  private static final Duration NVML_BOUND = Duration.ofSeconds(3);
  private static final Duration HEARTBEAT = Duration.ofMillis(100);
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int H100 = 1;

  private static KafkaBroker kafka;

  @Test
  void aHungNvmlCallFailsItsStepByNameWhileHeartbeatsGoOnAndALaterStepRuns() throws Throwable {
    kafka.createTopics(1, EVENTS, Topics.NODE_COMMANDS);
    kafka.createTopics(1, KafkaBroker.compacted(), Topics.NODE_DESIRED);
    Path hostRoot = Files.createTempDirectory(Path.of("target"), "hung-nvml-").toAbsolutePath();
    StubNvmlLibrary stub = StubNvmlLibrary.build(hostRoot.resolve("usr/local/lib64"));
    HostTree.talos(hostRoot)
        .hostname(NODE)
        .devices("/", 3)
        .executable("usr/local/bin/nvidia-smi", "#!/bin/sh\nexit 0\n");
    HostFacts facts = new HostProbe(HostProbeSettings.detectAll(hostRoot)).probe();
    CommandSigner signer = CommandSigner.generate();
    SpecFollowing following =
        SpecFollowing.of(signer.verifier()).withRetryBackoff(List.of(Duration.ofMillis(200)));

    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    ExecutorService gpuReads = Executors.newSingleThreadExecutor();
    ExecutorService strand = Executors.newSingleThreadExecutor();
    try (NvmlGpuBackend gpus = StubNvmlLibrary.backend(facts, NVML_BOUND);
        EventPublisher publisher =
            new EventPublisher(
                EventPublisher.Settings.of(kafka.bootstrapServers()).withTopic(EVENTS));
        NodeEventsReader events = new NodeEventsReader(kafka.bootstrapServers(), EVENTS);
        KafkaProducer<String, byte[]> producer = producer()) {
      NodeAgent agent =
          new NodeAgent(
              facts.toNodeRegistered(gpus.driverVersion(), "zone-h", Map.of()),
              Optional.of(gpus),
              () -> "boot-1",
              scheduler,
              gpuReads,
              new AgentSettings(
                  HEARTBEAT, URI.create("fleetwave:it/" + NODE), java.time.Clock.systemUTC()),
              NodeAgent.Publishing.inMemory(publisher, 0));
      agent.start();
      SpecConverger converger =
          new SpecConverger(
              agent,
              gpus,
              new AgentGate(List.of()),
              BootRecord.none(),
              io.fleetwave.agent.desired.ReplayFloor.none(),
              () -> "boot-1",
              following,
              strand,
              scheduler);
      try (CommandFollower follower =
          CommandFollower.start(
              CommandFollower.Settings.of(kafka.bootstrapServers(), following, WAIT),
              NODE::equals)) {
        converger.start();
        follower.follow(converger);

        stub.hangSetMigMode();
        send(
            producer,
            signer,
            new NodeSpec(NODE, 1, null, List.of(migOnH100(true)), GatePolicy.OPEN));

        StepFailed failed =
            await()
                .atMost(WAIT)
                .until(() -> events.of(NODE, StepFailed.class), f -> !f.isEmpty())
                .getFirst();
        assertThat(failed.step().kind()).isEqualTo(StepKind.SET_MIG_MODE);
        assertThat(failed.reason()).contains("nvmlDeviceSetMigMode did not return within 3 s");
        assertThat(heartbeatsBetweenStartAndFailureOf(events.of(NODE), failed))
            .as("heartbeats while nvmlDeviceSetMigMode hung for %s", NVML_BOUND)
            .isGreaterThanOrEqualTo(10);

        // Still hung: the retry fails fast, naming the stuck call, and never enters the driver.
        await()
            .atMost(WAIT)
            .until(
                () ->
                    events.of(NODE, GateHeld.class).stream()
                        .anyMatch(
                            held ->
                                held.reason()
                                    .contains(
                                        "NVML is stuck: nvmlDeviceSetMigMode has not returned for")));
        int beatsNow = events.of(NODE, Heartbeat.class).size();
        await().atMost(WAIT).until(() -> events.of(NODE, Heartbeat.class).size() >= beatsNow + 10);
        assertThat(stub.hungCalls()).as("calls that entered the hung function").isEqualTo(1);

        stub.releaseHang();
        send(
            producer,
            signer,
            new NodeSpec(NODE, 2, null, List.of(migOnH100(false)), GatePolicy.OPEN));

        await()
            .atMost(WAIT)
            .until(
                () -> events.of(NODE).stream().anyMatch(e -> e.data().equals(new SpecApplied(2))));
        assertThat(events.of(NODE, StepSucceeded.class))
            .anyMatch(s -> s.generation() == 2 && s.step().kind() == StepKind.SET_MIG_MODE);
        assertThat(agent.running()).isTrue();
        converger.stop();
      } finally {
        stub.releaseHang(); // before the backend closes: a thread stuck in the stub would block it
        agent.crash();
      }
    } finally {
      stub.releaseHang();
      scheduler.shutdownNow();
      gpuReads.shutdownNow();
      strand.shutdownNow();
    }
  }

  private static GpuSpec migOnH100(boolean enabled) {
    return new GpuSpec(H100, enabled, Map.of(), 0, Map.of());
  }

  /** Heartbeats the node sent after the failed step started and before it failed, by sequence. */
  private static long heartbeatsBetweenStartAndFailureOf(
      List<Envelope<FleetEvent>> events, StepFailed failed) {
    long started =
        events.stream()
            .filter(
                e ->
                    e.data() instanceof StepStarted s
                        && s.generation() == failed.generation()
                        && s.step().equals(failed.step()))
            .mapToLong(Envelope::seq)
            .findFirst()
            .orElseThrow();
    long ended =
        events.stream()
            .filter(e -> e.data().equals(failed))
            .mapToLong(Envelope::seq)
            .findFirst()
            .orElseThrow();
    return events.stream()
        .filter(e -> e.data() instanceof Heartbeat && e.seq() > started && e.seq() < ended)
        .count();
  }

  private static KafkaProducer<String, byte[]> producer() {
    return PlainProducers.ofBytes(kafka.bootstrapServers());
  }

  private static void send(
      KafkaProducer<String, byte[]> producer, CommandSigner signer, NodeSpec spec)
      throws Exception {
    CommandEnvelope command =
        signer.sign(
            CommandEnvelope.of(
                URI.create("fleetwave:control-plane"),
                NODE,
                Instant.now(),
                new ApplyNodeSpec(spec, Instant.now(), null)));
    producer
        .send(new ProducerRecord<>(Topics.NODE_DESIRED, NODE, CommandCodec.encode(command)))
        .get(30, TimeUnit.SECONDS);
  }
}
