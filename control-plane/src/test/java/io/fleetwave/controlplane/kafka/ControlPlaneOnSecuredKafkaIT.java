package io.fleetwave.controlplane.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.embedded.KafkaAccess;
import io.fleetwave.embedded.SecuredKafka;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.security.NodeEventSigner;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testsupport.services.PostgresExtension;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged control plane on a broker secured as deploy/ sets one up: SASL_SSL with
 * SCRAM-SHA-512, configured only through the environment as the Deployment does (KAFKA_*), its
 * principal holding exactly {@link KafkaAccess#CONTROL_PLANE}; node events come from a producer
 * holding the agent's grants.
 */
@ExtendWith(PostgresExtension.class)
class ControlPlaneOnSecuredKafkaIT {
  private static final Path APP = Path.of("target", "quarkus-app");
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String CONTROL_PLANE = "fleetwave-control-plane";
  private static final String PASSWORD = "cp-pw-0815";
  private static final String AGENT = "fleetwave-agent";
  private static final String AGENT_PASSWORD = "agent-pw-0815";
  private static SecuredKafka kafka;

  @TempDir Path dir;

  @BeforeAll
  static void broker(@TempDir Path brokerDir) {
    kafka = SecuredKafka.start(brokerDir);
    FleetTopics.create(kafka);
    kafka.addUser(CONTROL_PLANE, PASSWORD, KafkaAccess.CONTROL_PLANE);
    kafka.addUser(AGENT, AGENT_PASSWORD, KafkaAccess.AGENT);
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  @Test
  void withItsCredentialsItProjectsNodeEventsAndPublishesSpecs(EmbeddedPostgres postgres)
      throws Exception {
    Path log = dir.resolve("control-plane.log");
    try (ControlPlaneProcess controlPlane =
        ControlPlaneProcess.start(APP, 0, environment(postgres, PASSWORD), log)) {
      try (var agent =
          new KafkaProducer<>(
              new HashMap<String, Object>(kafka.clientSettings(AGENT, AGENT_PASSWORD)),
              new StringSerializer(),
              new ByteArraySerializer())) {
        // Signed with a key the node enrolled, as its agent does: node identity is required.
        NodeEventSigner signer = controlPlane.enroll("sasl-node");
        byte[] value =
            EventCodec.encode(
                Events.envelope(
                    "sasl-node",
                    1,
                    1,
                    Events.registered("sasl-node", HostKind.UBUNTU, "580.65.06", Map.of())));
        var record = new ProducerRecord<>(Topics.NODE_EVENTS, "sasl-node", value);
        signer.addHeaders(value, (name, text) -> record.headers().add(name, text.getBytes(UTF_8)));
        agent.send(record).get(30, TimeUnit.SECONDS);
      }
      String viewer = controlPlane.token("viewer");
      await()
          .atMost(WAIT)
          .until(
              () ->
                  call(controlPlane.port(), "GET", "/api/v1/nodes/sasl-node", viewer).statusCode()
                      == 200);

      HttpResponse<String> put =
          call(
              controlPlane.port(),
              "PUT",
              "/api/v1/nodes/sasl-node/spec",
              controlPlane.token("operator"));
      assertThat(put.statusCode()).as(put.body()).isEqualTo(202);
      assertThat(desiredSpecKeys()).contains("sasl-node");
      assertThat(Files.readString(log)).doesNotContain(PASSWORD);
    }
  }

  @Test
  void aWrongPasswordStopsTheStartNamingKafkasRefusal(EmbeddedPostgres postgres) throws Exception {
    Path log = dir.resolve("control-plane-wrong.log");
    try (ControlPlaneProcess controlPlane =
        ControlPlaneProcess.launch(APP, 0, environment(postgres, "not-" + PASSWORD), log)) {
      await().atMost(WAIT).until(() -> !controlPlane.alive());
      // Quarkus' start failure ends with Kafka's own exception as the cause.
      assertThat(Files.readString(log))
          .contains(
              "Caused by: org.apache.kafka.common.errors.SaslAuthenticationException:"
                  + " Authentication failed during authentication due to invalid credentials with"
                  + " SASL mechanism SCRAM-SHA-512")
          .doesNotContain(PASSWORD)
          .doesNotContain("Listening on");
    }
  }

  private static Map<String, String> environment(EmbeddedPostgres postgres, String password) {
    Map<String, String> settings = kafka.clientSettings(CONTROL_PLANE, password);
    return Map.of(
        "KAFKA_BOOTSTRAP_SERVERS", kafka.secureBootstrapServers(),
        "KAFKA_SECURITY_PROTOCOL", settings.get("security.protocol"),
        "KAFKA_SASL_MECHANISM", settings.get("sasl.mechanism"),
        "KAFKA_SASL_JAAS_CONFIG", settings.get("sasl.jaas.config"),
        "KAFKA_SSL_TRUSTSTORE_TYPE", "PEM",
        "KAFKA_SSL_TRUSTSTORE_LOCATION", kafka.caCertificate().toString(),
        "QUARKUS_DATASOURCE_REACTIVE_URL", ControlPlaneProcess.databaseUrl(postgres),
        "FLEETWAVE_COMMANDS_PRIVATE_KEY", CommandSigner.generate().privateKeyPem());
  }

  /** The node names on the desired-spec topic, read as the operator (plaintext super user). */
  private static List<String> desiredSpecKeys() {
    try (var consumer =
        new KafkaConsumer<>(
            Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest"),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      var partitions =
          consumer.partitionsFor(Topics.NODE_DESIRED).stream()
              .map(p -> new org.apache.kafka.common.TopicPartition(p.topic(), p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      List<String> keys = new java.util.ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      var end = consumer.endOffsets(partitions);
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
          && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          keys.add(record.key());
        }
      }
      return keys;
    }
  }

  private static HttpResponse<String> call(int port, String method, String path, String token)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", "Bearer " + token);
    if (method.equals("PUT")) {
      request.header("Content-Type", "application/json");
      request.PUT(HttpRequest.BodyPublishers.ofString("{\"gpus\": []}"));
    }
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
