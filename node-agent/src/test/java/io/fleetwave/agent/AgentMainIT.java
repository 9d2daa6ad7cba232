package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.agent.kubernetes.KubernetesApi;
import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.CommandCodec;
import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.node.AgentStopping;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.GateReleased;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.NodeSpec;
import io.fleetwave.testsupport.kafka.NodeEventsReader;
import io.fleetwave.testsupport.kafka.PlainProducers;
import io.fleetwave.testsupport.services.KafkaExtension;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The real agent as an operator runs it: a separate JVM on a Talos-shaped host tree whose driver
 * root holds a gcc-built stand-in libnvidia-ml.so.1; its events are read back from a real broker.
 */
@ExtendWith(KafkaExtension.class)
class AgentMainIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static KafkaBroker kafka;
  private static Path hostRoot;

  @BeforeAll
  static void hostAndTopics() throws Exception {
    hostRoot = AgentHosts.talosWithStubNvml("agent-host", 3, "7d1f0c3e-boot");
    AgentHosts.createTopics(kafka);
  }

  @Test
  void probeOnlyPrintsTheFactsAndInventoryAndChangesNothing() throws Exception {
    Process agent = agent("--probe-only", "--host-root", hostRoot.toString());
    assertThat(agent.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    String out = new String(agent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(agent.exitValue()).as(out).isZero();
    assertThat(out).contains("\"hostKind\" : \"talos\"", "\"readOnlyRoot\" : true");
    assertThat(out).contains("driverRoot=/usr/local: found lib64/libnvidia-ml.so.1");
    assertThat(out).contains("GpuInventoryReported");
  }

  @Test
  void publishesFactsInventoryAndHeartbeatsUntilStopped() throws Exception {
    Process agent =
        agent(
            AgentProcess.heartbeating(
                kafka.bootstrapServers(),
                hostRoot,
                "--zone",
                "zone-t",
                "--labels",
                "pool=training"));
    try (NodeEventsReader events = events()) {
      await()
          .atMost(WAIT)
          .until(() -> events.events().stream().anyMatch(e -> e.type().contains("heartbeat")));

      NodeRegistered facts = first(events, NodeRegistered.class);
      assertThat(facts.hostKind()).isEqualTo(HostKind.TALOS);
      assertThat(facts.readOnlyRoot()).isTrue();
      assertThat(facts.systemd()).isFalse();
      assertThat(facts.driverRoot()).isEqualTo("/usr/local");
      assertThat(facts.zone()).isEqualTo("zone-t");
      assertThat(facts.labels()).containsEntry("pool", "training");
      List<Gpu> gpus = first(events, GpuInventoryReported.class).gpus();
      assertThat(gpus).extracting(Gpu::pciDeviceId).hasSize(3).contains("0x233010DE");
      assertThat(gpus)
          .filteredOn(g -> !g.migCapable())
          .allMatch(g -> g.migMode() == MigMode.UNSUPPORTED);

      agent.destroy();
      assertThat(agent.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      await()
          .atMost(WAIT)
          .until(() -> events.events().stream().anyMatch(e -> e.data() instanceof AgentStopping));
    } finally {
      agent.destroyForcibly();
    }
  }

  @Test
  void withAPublicKeyItFollowsItsSignedSpecHoldingTheGateFromBootAndRefusesForgedOnes()
      throws Exception {
    CommandSigner signer = CommandSigner.generate();
    Path key = AgentHosts.publicKeyFile(signer);
    Process agent =
        agent(
            "--bootstrap", kafka.bootstrapServers(),
            "--host-root", hostRoot.toString(),
            "--public-key", key.toString());
    try (NodeEventsReader events = events();
        KafkaProducer<String, byte[]> producer = producer()) {
      await()
          .atMost(WAIT)
          .until(() -> events.events().stream().anyMatch(e -> e.data() instanceof GateHeld));
      String node = first(events, NodeRegistered.class).hostname();
      // Talos keeps no state directory: the agent cannot know the last boot and says so.
      assertThat(first(events, NodeBooted.class)).isEqualTo(new NodeBooted("7d1f0c3e-boot", null));

      NodeSpec spec = new NodeSpec(node, 1, null, List.of(), GatePolicy.HOLD_UNTIL_APPLIED);
      CommandEnvelope forged =
          CommandSigner.generate()
              .sign(
                  CommandEnvelope.of(
                      URI.create("fleetwave:impostor"),
                      node,
                      Instant.now(),
                      new ApplyNodeSpec(spec, Instant.now(), null)));
      send(producer, forged);
      // Refused before the signed spec is sent: a joining agent catching up on the compacted topic
      // sees only the newest record per node, so sending both at once could hide the forged one.
      await().atMost(WAIT).until(() -> !events.events(SpecRejected.class).isEmpty());
      CommandEnvelope signed =
          signer.sign(
              CommandEnvelope.of(
                  URI.create("fleetwave:control-plane"),
                  node,
                  Instant.now(),
                  new ApplyNodeSpec(spec, Instant.now(), null)));
      send(producer, signed);
      await()
          .atMost(WAIT)
          .until(() -> events.events().stream().anyMatch(e -> e.data().equals(new SpecApplied(1))));
      // Signed by a key the agent was not given: refused, naming that key.
      assertThat(first(events, SpecRejected.class).code()).isEqualTo("unknown-key");
      assertThat(first(events, SpecRejected.class).reason()).contains(forged.kid());
      assertThat(first(events, SpecAccepted.class).steps())
          .extracting(PlannedStep::kind)
          .containsExactly(StepKind.RELEASE_GATE);
      assertThat(events.events()).anyMatch(e -> e.data().equals(new GateReleased(1)));
    } finally {
      agent.destroyForcibly();
    }
  }

  @Test
  void everyPublishedEventAndTheReceivedSpecAreLoggedOnceAsJsonLines() throws Exception {
    CommandSigner signer = CommandSigner.generate();
    Path key = AgentHosts.publicKeyFile(signer);
    Path log = Files.createTempFile(Path.of("target"), "agent-json-", ".log");
    Process agent =
        agent(
            Map.of("FLEETWAVE_LOG_FORMAT", "json"),
            List.of(),
            log,
            AgentProcess.heartbeating(
                kafka.bootstrapServers(), hostRoot, "--public-key", key.toString()));
    try (NodeEventsReader events = events();
        KafkaProducer<String, byte[]> producer = producer()) {
      await().atMost(WAIT).until(() -> eventLines(log).size() >= 3);
      long epoch = eventLines(log).getFirst().path("epoch").asLong();
      String node = eventLines(log).getFirst().path("node").asText();
      long generation = System.currentTimeMillis(); // above any spec an earlier test sent
      send(
          producer,
          signer.sign(
              CommandEnvelope.of(
                  URI.create("fleetwave:control-plane"),
                  node,
                  Instant.now(),
                  new ApplyNodeSpec(
                      new NodeSpec(
                          node, generation, null, List.of(), GatePolicy.HOLD_UNTIL_APPLIED),
                      Instant.now(),
                      null))));
      await()
          .atMost(WAIT)
          .until(() -> events.of(node, SpecApplied.class).contains(new SpecApplied(generation)));

      // Heartbeats go on: compare what is on the topic with the lines once both hold the same.
      await("one line per event of this run, in seq order")
          .atMost(WAIT)
          .until(() -> published(events, node, epoch).equals(logged(log, epoch)));
      List<String> published = published(events, node, epoch);
      assertThat(published).contains("0 NodeRegistered", "1 GpuInventoryReported");
      assertThat(logged(log, epoch)).isEqualTo(published);

      List<com.fasterxml.jackson.databind.JsonNode> lines = jsonLines(log);
      assertThat(lines)
          .as("the spec received, once")
          .filteredOn(l -> "ApplyNodeSpec".equals(l.path("command").asText()))
          .filteredOn(l -> l.path("generation").asLong() == generation)
          .singleElement()
          .satisfies(l -> assertThat(l.path("node").asText()).isEqualTo(node));
      assertThat(eventLines(log))
          .filteredOn(l -> l.path("event").asText().equals("SpecApplied"))
          .filteredOn(l -> l.path("epoch").asLong() == epoch)
          .singleElement()
          .satisfies(
              l ->
                  assertThat(l.path("message").asText())
                      .matches(
                          "node "
                              + node
                              + " event SpecApplied epoch="
                              + epoch
                              + " seq=\\d+ gen="
                              + generation
                              + " applied in \\d+\\.\\d s"));
    } finally {
      agent.destroyForcibly();
    }
  }

  /** This run's events on the topic, as {@code "seq Type"}, in seq order. */
  private static List<String> published(NodeEventsReader events, String node, long epoch) {
    return events.of(node).stream()
        .filter(e -> e.epoch() == epoch)
        .map(e -> e.seq() + " " + e.data().getClass().getSimpleName())
        .toList();
  }

  /** This run's per-event log lines, as {@code "seq Type"}, in the order logged. */
  private static List<String> logged(Path log, long epoch) throws Exception {
    return eventLines(log).stream()
        .filter(l -> l.path("epoch").asLong() == epoch)
        .map(l -> l.path("seq").asLong() + " " + l.path("event").asText())
        .toList();
  }

  private static List<com.fasterxml.jackson.databind.JsonNode> eventLines(Path log)
      throws Exception {
    return jsonLines(log).stream().filter(l -> l.has("event")).toList();
  }

  /** Every complete line of the agent's output, each of which must be one JSON object. */
  private static List<com.fasterxml.jackson.databind.JsonNode> jsonLines(Path log)
      throws Exception {
    String text = Files.readString(log);
    List<com.fasterxml.jackson.databind.JsonNode> lines = new java.util.ArrayList<>();
    // A line still being written has no newline yet: only complete lines count.
    for (String line : text.substring(0, text.lastIndexOf('\n') + 1).split("\n", -1)) {
      if (line.isBlank() || line.startsWith("WARNING: ")) {
        continue; // the JVM's own native-access warnings are not the agent's log
      }
      lines.add(io.fleetwave.events.codec.EventCodec.mapper().readTree(line));
    }
    return lines;
  }

  @Test
  void anUnreadablePublicKeyStopsTheAgentWithAClearMessage() throws Exception {
    Process agent =
        agent(
            "--bootstrap", kafka.bootstrapServers(),
            "--host-root", hostRoot.toString(),
            "--public-key", "target/no-such-key.pem");
    assertThat(agent.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    String out = new String(agent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(agent.exitValue()).as(out).isEqualTo(2);
    assertThat(out).contains("--public-key: cannot read target/no-such-key.pem");
  }

  @Test
  void configuredOnlyThroughAKafkaConfigFileItPublishesUnderItsClientIdAndNeverLogsTheSecret()
      throws Exception {
    Path config = Files.createTempFile(Path.of("target"), "kafka-", ".properties");
    Files.writeString(
        config,
        """
        bootstrap.servers=%s
        client.id=fleetwave-it-agent
        # unused on PLAINTEXT: here to show that it is never logged
        sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\
            username="agent" password="it-s3cret";
        """
            .formatted(kafka.bootstrapServers()));
    Path log = Files.createTempFile(Path.of("target"), "agent-", ".log");
    Process agent =
        agent(
            log,
            "--kafka-config",
            config.toString(),
            "--node-name",
            "kafka-config-node",
            "--host-root",
            hostRoot.toString());
    try (NodeEventsReader events = events()) {
      await()
          .atMost(WAIT)
          .until(
              () ->
                  events.events().stream()
                      .anyMatch(
                          e ->
                              e.data() instanceof NodeRegistered registered
                                  && registered.hostname().equals("kafka-config-node")));
      agent.destroy();
      assertThat(agent.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      String out = Files.readString(log);

      assertThat(out)
          .contains(
              "Kafka client settings from " + config,
              "client.id=fleetwave-it-agent",
              "sasl.jaas.config=[hidden]",
              "[Producer clientId=fleetwave-it-agent]")
          .doesNotContain("it-s3cret");
    } finally {
      agent.destroyForcibly();
    }
  }

  @Test
  void aKafkaConfigFileThatSetsAcksStopsTheAgentNamingTheLineAndKey() throws Exception {
    Path config = Files.createTempFile(Path.of("target"), "kafka-", ".properties");
    Files.writeString(config, "bootstrap.servers=" + kafka.bootstrapServers() + "\nacks=1\n");
    Process agent = agent("--kafka-config", config.toString(), "--host-root", hostRoot.toString());
    assertThat(agent.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    String out = new String(agent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(agent.exitValue()).as(out).isEqualTo(2);
    assertThat(out)
        .contains(
            "--kafka-config "
                + config
                + ": line 2: acks is set by the agent and cannot be overridden (acks=all: ");
  }

  @Test
  void inAPodTheAgentTakesZoneAndLabelsFromItsNodeObject() throws Exception {
    Path log = Files.createTempFile(Path.of("target"), "agent-", ".log");
    try (KubernetesApi api =
        new KubernetesApi()
            .node(
                "gke-h200-pool-1",
                Map.of(
                    "topology.kubernetes.io/zone", "us-central1-a",
                    "cloud.google.com/gke-nodepool", "h200-pool"))) {
      Path pod = Files.createTempDirectory(Path.of("target"), "pod-");
      Process agent =
          agent(
              api.podEnvironment(pod, "gke-h200-pool-1"),
              List.of(),
              log,
              "--probe-only",
              "--host-root",
              hostRoot.toString());
      assertThat(agent.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      String out = Files.readString(log);

      assertThat(agent.exitValue()).as(out).isZero();
      assertThat(out)
          .contains(
              "\"hostname\" : \"gke-h200-pool-1\"",
              "\"zone\" : \"us-central1-a\"",
              "\"cloud.google.com/gke-nodepool\" : \"h200-pool\"",
              "Node object of gke-h200-pool-1 read: zone=us-central1-a, 2 labels from it");
    }
  }

  @Test
  void offKubernetesTheAgentLoadsNoKubernetesClientClass() throws Exception {
    Path log = Files.createTempFile(Path.of("target"), "agent-", ".log");
    Process agent =
        agent(
            Map.of("NODE_NAME", "bare-metal-1"),
            List.of("-Xlog:class+load=info"),
            log,
            "--probe-only",
            "--host-root",
            hostRoot.toString());
    assertThat(agent.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    List<String> lines = Files.readAllLines(log);

    assertThat(agent.exitValue()).as(String.join("\n", lines)).isZero();
    assertThat(lines).anyMatch(line -> line.contains(" io.fleetwave.agent.Placement "));
    assertThat(lines).noneMatch(line -> line.contains(" io.fabric8."));
  }

  private static KafkaProducer<String, byte[]> producer() {
    return PlainProducers.ofBytes(kafka.bootstrapServers());
  }

  private static void send(KafkaProducer<String, byte[]> producer, CommandEnvelope command)
      throws Exception {
    producer
        .send(
            new ProducerRecord<>(
                Topics.NODE_DESIRED, command.subject(), CommandCodec.encode(command)))
        .get(30, TimeUnit.SECONDS);
  }

  private static Process agent(String... args) throws Exception {
    return AgentProcess.start(args);
  }

  /** The agent with its output in a file, which outlives the process (destroy closes pipes). */
  private static Process agent(Path log, String... args) throws Exception {
    return AgentProcess.start(Map.of(), List.of(), log, args);
  }

  private static Process agent(
      Map<String, String> env, List<String> jvmFlags, Path log, String... args) throws Exception {
    return AgentProcess.start(env, jvmFlags, log, args);
  }

  private static NodeEventsReader events() {
    return new NodeEventsReader(kafka.bootstrapServers(), Topics.NODE_EVENTS);
  }

  private static <T> T first(NodeEventsReader events, Class<T> type) {
    return events.events(type).getFirst();
  }
}
