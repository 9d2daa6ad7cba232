package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.nvml.StubNvmlLibrary;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.embedded.KafkaAccess;
import io.fleetwave.embedded.SecuredKafka;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.CommandCodec;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.security.EnrolledKey;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.NodeSpec;
import io.fleetwave.testsupport.kafka.NodeEventsReader;
import io.fleetwave.testsupport.kafka.PlainProducers;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real agent against a broker secured as deploy/ sets one up: SASL_SSL (SCRAM-SHA-512, the
 * broker's certificate trusted as a PEM file) and the agent's principal holding exactly {@link
 * KafkaAccess#AGENT}. A Talos-shaped host: no state directory, so the agent also reads its last
 * epoch back from the node events before it publishes.
 */
class AgentOnSecuredKafkaIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String AGENT = "fleetwave-agent";
  private static final String PASSWORD = "agent-pw-4711";
  private static Path dir;
  private static Path hostRoot;
  private static SecuredKafka kafka;

  @BeforeAll
  static void brokerAndHost() throws Exception {
    dir = Files.createTempDirectory(Path.of("target"), "secured-kafka-").toAbsolutePath();
    kafka = SecuredKafka.start(dir);
    FleetTopics.create(kafka);
    kafka.addUser(AGENT, PASSWORD, KafkaAccess.AGENT);
    hostRoot = dir.resolve("host");
    StubNvmlLibrary.build(hostRoot.resolve("usr/local/lib64"));
    HostTree.talos(hostRoot).devices("/", 2).bootId("5ec0b00t");
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  /**
   * As deploy/ runs it: client.properties names no secret, Kafka's DirectoryConfigProvider reads
   * sasl.jaas.config from the KafkaUser's Secret, mounted as a directory of files.
   */
  @Test
  void withItsCredentialsTheAgentPublishesAndFollowsItsSignedSpec() throws Exception {
    Path secret = Files.createDirectories(dir.resolve("kafka-user"));
    Files.writeString(
        secret.resolve("sasl.jaas.config"),
        kafka.clientSettings(AGENT, PASSWORD).get("sasl.jaas.config"));
    Map<String, String> settings = new HashMap<>(kafka.clientSettings(AGENT, PASSWORD));
    settings.put("config.providers", "secret");
    settings.put(
        "config.providers.secret.class",
        "org.apache.kafka.common.config.provider.DirectoryConfigProvider");
    settings.put("config.providers.secret.param.allowed.paths", secret.toString());
    settings.put("sasl.jaas.config", "${secret:" + secret + ":sasl.jaas.config}");
    Path config = SecuredKafka.writeProperties(settings, dir.resolve("client.properties"));
    CommandSigner signer = CommandSigner.generate();
    Path key = Files.writeString(dir.resolve("command-key.pem"), signer.publicKeyPem());
    Path log = dir.resolve("agent-ok.log");
    // An earlier run of the node, numbered far above the clock (epochs follow it otherwise): the
    // agent must read it back (Read on the node events) and go on above it.
    long earlierEpoch = System.currentTimeMillis() + Duration.ofDays(3650).toMillis();
    try (KafkaProducer<String, byte[]> operator = operatorProducer()) {
      Envelope<Heartbeat> earlier =
          Envelope.of(
              URI.create("fleetwave:agent/secured-node"),
              "secured-node",
              Instant.now(),
              earlierEpoch,
              7,
              new Heartbeat("earlier-boot", 60));
      operator
          .send(
              new ProducerRecord<>(
                  Topics.NODE_EVENTS, earlier.subject(), EventCodec.encode(earlier)))
          .get(30, TimeUnit.SECONDS);
    }

    Process agent =
        agent(
            log,
            "secured-node",
            "--kafka-config",
            config.toString(),
            "--public-key",
            key.toString());
    try (NodeEventsReader events =
            new NodeEventsReader(kafka.bootstrapServers(), Topics.NODE_EVENTS);
        KafkaProducer<String, byte[]> operator = operatorProducer()) {
      await()
          .atMost(WAIT)
          .until(() -> !events.events(NodeRegistered.class).isEmpty() || !agent.isAlive());
      assertThat(agent.isAlive()).as(Files.readString(log)).isTrue();
      assertThat(events.of("secured-node"))
          .filteredOn(e -> e.data() instanceof NodeRegistered)
          .extracting(Envelope::epoch)
          .containsOnly(earlierEpoch + 1);

      NodeSpec spec =
          new NodeSpec("secured-node", 1, null, List.of(), GatePolicy.HOLD_UNTIL_APPLIED);
      CommandEnvelope signed =
          signer.sign(
              CommandEnvelope.of(
                  URI.create("fleetwave:control-plane"),
                  "secured-node",
                  Instant.now(),
                  new ApplyNodeSpec(spec, Instant.now(), null)));
      operator
          .send(
              new ProducerRecord<>(
                  Topics.NODE_DESIRED, signed.subject(), CommandCodec.encode(signed)))
          .get(30, TimeUnit.SECONDS);
      await()
          .atMost(WAIT)
          .until(() -> events.events().stream().anyMatch(e -> e.data().equals(new SpecApplied(1))));
      assertThat(Files.readString(log)).doesNotContain(PASSWORD);
    } finally {
      agent.destroyForcibly();
    }
  }

  /**
   * Per-node Kafka users (issue 32): the settings hold no login at all, only the SASL listener and
   * its trust; the control plane's enrolment answer (here a stand-in with its answer's shape) gives
   * the node its own SCRAM user, made as the User Operator makes it, and the agent publishes with
   * it. Without the login it could not publish, so its events on the topic prove it logged in.
   */
  @Test
  void enrolledWithItsOwnKafkaUserTheAgentPublishesAsThatUser() throws Exception {
    String node = "own-user-node";
    String user = "fleetwave-node-" + node;
    String password = "node-pw-0815";
    kafka.addUser(user, password, KafkaAccess.AGENT);
    Map<String, String> settings = new HashMap<>(kafka.clientSettings(AGENT, PASSWORD));
    settings.remove("sasl.jaas.config");
    Path config = SecuredKafka.writeProperties(settings, dir.resolve("no-login.properties"));
    Path token = Files.writeString(dir.resolve("join-token"), "fwj_stand-in-token\n");
    HttpServer controlPlane =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    controlPlane.createContext(
        "/api/v1/nodes/" + node + "/enrolment",
        exchange -> {
          try (exchange) {
            String pem =
                EventCodec.mapper().readTree(exchange.getRequestBody()).path("publicKey").asText();
            String keyId = EnrolledKey.of(node, pem, false).keyId();
            ObjectNode answer = EventCodec.mapper().createObjectNode();
            answer.put("node", node).put("keyId", keyId).put("credential", "join-token");
            answer.put("enrolledAt", Instant.now().toString());
            answer.putArray("nodeKeys").addObject().put("keyId", keyId).put("publicKey", pem);
            answer
                .putObject("kafka")
                .put("username", user)
                .put("password", password)
                .put("mechanism", "SCRAM-SHA-512");
            byte[] body = EventCodec.mapper().writeValueAsBytes(answer);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(201, body.length);
            exchange.getResponseBody().write(body);
          }
        });
    controlPlane.start();
    Path log = dir.resolve("agent-own-user.log");
    Process agent =
        agent(
            log,
            node,
            "--kafka-config",
            config.toString(),
            "--control-plane",
            "http://127.0.0.1:" + controlPlane.getAddress().getPort(),
            "--join-token-file",
            token.toString());
    try (NodeEventsReader events =
        new NodeEventsReader(kafka.bootstrapServers(), Topics.NODE_EVENTS)) {
      await()
          .atMost(WAIT)
          .until(
              () ->
                  events.of(node).stream().anyMatch(e -> e.data() instanceof NodeRegistered)
                      || !agent.isAlive());
      String out = Files.readString(log);
      assertThat(agent.isAlive()).as(out).isTrue();
      assertThat(out).contains("its own Kafka user " + user).doesNotContain(password);
    } finally {
      agent.destroyForcibly();
      controlPlane.stop(0);
    }
  }

  @Test
  void aWrongPasswordStopsTheAgentAtOnceWithKafkasReason() throws Exception {
    Path config =
        SecuredKafka.writeProperties(
            kafka.clientSettings(AGENT, "not-" + PASSWORD), dir.resolve("wrong.properties"));
    Path log = dir.resolve("agent-wrong.log");
    Process agent = agent(log, "impostor-node", "--kafka-config", config.toString());
    assertThat(agent.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    String out = Files.readString(log);

    assertThat(agent.exitValue()).as(out).isEqualTo(3);
    assertThat(out)
        .contains(
            "fleetwave-agent: Kafka at "
                + kafka.secureBootstrapServers()
                + " refused the agent's credentials (SaslAuthenticationException: Authentication"
                + " failed during authentication due to invalid credentials with SASL mechanism"
                + " SCRAM-SHA-512)")
        .doesNotContain("not-" + PASSWORD);
    assertNothingPublishedBy("impostor-node");
  }

  /** No credentials at all: the agent speaks plaintext to a TLS listener and gets no answer. */
  @Test
  void withoutCredentialsTheAgentIsRefusedWithinItsBound() throws Exception {
    Path log = dir.resolve("agent-none.log");
    Process agent = agent(log, "anonymous-node", "--bootstrap", kafka.secureBootstrapServers());
    assertThat(agent.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    String out = Files.readString(log);

    assertThat(agent.exitValue()).as(out).isNotZero();
    assertThat(out)
        .contains(
            "Kafka at " + kafka.secureBootstrapServers() + " did not serve topic fleet.node-events",
            "security.protocol");
    assertNothingPublishedBy("anonymous-node");
  }

  @Test
  void theAgentsCredentialsWriteNoSpecsOrCommandsAndReadNoRolloutsSnapshotsOrDeadLetters() {
    Map<String, Object> agentSettings = new HashMap<>(kafka.clientSettings(AGENT, PASSWORD));
    agentSettings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    agentSettings.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
    try (var producer =
        new KafkaProducer<>(agentSettings, new StringSerializer(), new ByteArraySerializer())) {
      for (String topic :
          List.of(Topics.NODE_DESIRED, Topics.NODE_COMMANDS, Topics.ROLLOUT_EVENTS)) {
        assertThatThrownBy(
                () -> {
                  try {
                    producer
                        .send(new ProducerRecord<>(topic, "node-1", new byte[1]))
                        .get(30, TimeUnit.SECONDS);
                  } catch (ExecutionException e) {
                    throw e.getCause();
                  }
                })
            .as("write to %s", topic)
            .isInstanceOf(TopicAuthorizationException.class);
      }
    }
    try (var consumer =
        new KafkaConsumer<>(
            agentSettings, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      for (String topic :
          List.of(Topics.ROLLOUT_EVENTS, Topics.NODE_SNAPSHOTS, Topics.NODE_EVENTS_DLQ)) {
        TopicPartition partition = new TopicPartition(topic, 0);
        consumer.assign(List.of(partition));
        consumer.seekToBeginning(List.of(partition));
        assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(10)))
            .as("read %s", topic)
            .isInstanceOf(TopicAuthorizationException.class);
      }
    }
    Map<String, Object> inAGroup = new HashMap<>(agentSettings);
    inAGroup.put(ConsumerConfig.GROUP_ID_CONFIG, "fleetwave-projection");
    try (var consumer =
        new KafkaConsumer<>(inAGroup, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(Topics.NODE_EVENTS));
      assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(10)))
          .as("join the projection's group")
          .isInstanceOf(GroupAuthorizationException.class);
    }
  }

  /** The agent as {@code node} on the Talos-shaped host, its output in {@code log}. */
  private static Process agent(Path log, String node, String... options) throws Exception {
    List<String> args = new ArrayList<>(List.of(options));
    args.addAll(List.of("--node-name", node, "--host-root", hostRoot.toString()));
    return AgentProcess.start(Map.of(), List.of(), log, args.toArray(String[]::new));
  }

  private static void assertNothingPublishedBy(String node) {
    try (NodeEventsReader events =
        new NodeEventsReader(kafka.bootstrapServers(), Topics.NODE_EVENTS)) {
      assertThat(events.events()).noneMatch(e -> e.subject().equals(node));
    }
  }

  /** The operator's side (the plaintext super user): stands in for the control plane here. */
  private static KafkaProducer<String, byte[]> operatorProducer() {
    return PlainProducers.ofBytes(kafka.bootstrapServers());
  }
}
