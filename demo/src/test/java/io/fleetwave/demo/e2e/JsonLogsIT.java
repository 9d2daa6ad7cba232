package io.fleetwave.demo.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.agent.desired.SpecFollowing;
import io.fleetwave.controlplane.fixtures.ApiTokens;
import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.RolloutApi;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.simulator.FleetEnrolment;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.fleet.FleetFile;
import io.fleetwave.testsupport.services.KafkaExtension;
import io.fleetwave.testsupport.services.PostgresExtension;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged control plane started with {@code QUARKUS_LOG_CONSOLE_JSON_ENABLED=true}, as an
 * operator switches JSON logs on: its console is one JSON object per line, and the lines about a
 * rollout and a node carry them in the MDC: the engine's decisions and spec sends (its own thread)
 * and an API change (a request's Mutiny chain, where the MDC lives in the Vert.x context).
 *
 * <p>In the demo module, beside the other tests that run the control plane with a simulated fleet:
 * the control plane's module builds before the simulator's (its tests need no simulator).
 */
@ExtendWith({KafkaExtension.class, PostgresExtension.class})
class JsonLogsIT {
  private static final Path APP = Path.of("..", "control-plane", "target", "quarkus-app");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final Duration SETTLE_BOUND = Duration.ofSeconds(120);
  private static final String NODE = "json-h100-0";
  private static final String ROLLOUT =
      """
      {"name": "json-logs", "target": {"selector": "pool=json"},
       "change": {"migConfig": "all-1g.10gb"},
       "strategy": {"waves": ["1", "100%"], "maxUnavailable": "1", "soakSeconds": 0,
                    "failureThreshold": {"perWave": "0", "total": "0", "action": "pause"},
                    "manualPromotion": false, "nodeTimeoutSeconds": 300}}
      """;
  private static final String FLEET =
      """
      nodes:
        - name-prefix: json-h100
          count: 2
          host: ubuntu
          labels: {pool: json}
          driver-version: "580.95.05"
          gpus:
            - model: "0x233010DE"
              count: 1
      """;

  @TempDir Path dir;

  @Test
  void withJsonOnEveryLineIsJsonAndRolloutAndNodeAreInTheMdc(
      KafkaBroker kafka, EmbeddedPostgres postgres) throws Exception {
    FleetTopics.create(kafka);
    CommandSigner signer = CommandSigner.generate();
    Path log = dir.resolve("control-plane.log");
    String rolloutId;
    try (ControlPlaneProcess controlPlane =
            ControlPlaneProcess.start(APP, 0, environment(kafka, postgres, signer), log);
        SimulatedFleet _ =
            SimulatedFleet.start(
                FleetFile.parse(FLEET, "json-logs-fleet.yaml"),
                SimulatedFleet.Settings.of(kafka.bootstrapServers(), Duration.ofSeconds(1)),
                SpecFollowing.of(signer.verifier()),
                null,
                FleetEnrolment.of(controlPlane.url(), controlPlane::joinToken))) {
      String operator = controlPlane.token("operator");
      await("both nodes projected with their GPU")
          .atMost(SETTLE_BOUND)
          .until(() -> gpus(controlPlane.port(), operator, NODE) == 1);
      RolloutApi rollouts = new RolloutApi(controlPlane.port(), operator);
      rolloutId = rollouts.create(ROLLOUT).get("id").asText();
      JsonNode finished = rollouts.awaitFinished(rolloutId, SETTLE_BOUND);
      assertThat(finished.path("state").asText()).as("%s", finished).isEqualTo("completed");
      HttpResponse<String> reset =
          post(controlPlane.port(), operator, "/api/v1/nodes/" + NODE + "/actions/reset-gpu");
      assertThat(reset.statusCode()).as(reset.body()).isEqualTo(202);
      await("the reset's audit line written")
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.readString(log).contains("reset-gpu"));
    }

    List<JsonNode> lines = jsonLines(log);
    assertThat(lines).as("lines logged").hasSizeGreaterThan(10);
    JsonNode started =
        the(lines, "the NodeStarted decision", l -> message(l).contains("NodeStarted " + NODE));
    assertThat(mdc(started, "rollout")).as("%s", started).isEqualTo(rolloutId);
    assertThat(mdc(started, "node")).as("%s", started).isEqualTo(NODE);
    JsonNode sent =
        the(lines, "the spec sent", l -> message(l).contains("sending node " + NODE + " its spec"));
    assertThat(mdc(sent, "rollout")).as("%s", sent).isEqualTo(rolloutId);
    assertThat(mdc(sent, "node")).as("%s", sent).isEqualTo(NODE);
    JsonNode completed =
        the(lines, "the rollout's completion", l -> message(l).contains("RolloutCompleted"));
    assertThat(mdc(completed, "rollout")).as("%s", completed).isEqualTo(rolloutId);
    assertThat(mdc(completed, "node")).as("%s", completed).isNull();
    JsonNode audited =
        the(
            lines,
            "the API's audit line of the reset",
            l -> message(l).startsWith("POST /api/v1/nodes/{name}/actions/reset-gpu"));
    assertThat(mdc(audited, "node")).as("%s", audited).isEqualTo(NODE);
    assertThat(mdc(audited, "rollout")).as("%s", audited).isNull();
  }

  /**
   * Every line of the console, each parsed as one JSON object (fails naming a line that is not).
   */
  private static List<JsonNode> jsonLines(Path log) throws IOException {
    List<JsonNode> parsed = new ArrayList<>();
    for (String line : Files.readAllLines(log)) {
      if (line.isBlank() || jvmWarning(line)) {
        continue;
      }
      try {
        JsonNode node = JSON.readTree(line);
        assertThat(node.isObject()).as("a JSON object per line: %s", line).isTrue();
        parsed.add(node);
      } catch (IOException e) {
        throw new AssertionError("a console line that is not JSON: " + line, e);
      }
    }
    return parsed;
  }

  /**
   * The JVM's own warnings (native access, before any logging is set up) go to stderr as text; no
   * logger writes them.
   */
  private static boolean jvmWarning(String line) {
    return line.startsWith("WARNING: ");
  }

  private static JsonNode the(List<JsonNode> lines, String what, Predicate<JsonNode> matches) {
    return lines.stream()
        .filter(matches)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no line of " + what + " in " + lines.size()));
  }

  private static String message(JsonNode line) {
    return line.path("message").asText();
  }

  private static String mdc(JsonNode line, String key) {
    return line.path("mdc").path(key).asText(null);
  }

  private static int gpus(int port, String token, String node)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/api/v1/nodes/" + node))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", ApiTokens.bearer(token))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return response.statusCode() == 200 ? JSON.readTree(response.body()).path("gpus").size() : 0;
  }

  private static HttpResponse<String> post(int port, String token, String path)
      throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", ApiTokens.bearer(token))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"gpu\": 0}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static Map<String, String> environment(
      KafkaBroker kafka, EmbeddedPostgres postgres, CommandSigner signer) {
    return Map.of(
        "QUARKUS_LOG_CONSOLE_JSON_ENABLED", "true",
        "KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers(),
        "QUARKUS_DATASOURCE_REACTIVE_URL", postgres.reactiveUrl(),
        "QUARKUS_DATASOURCE_JDBC_URL", postgres.jdbcUrl(),
        "QUARKUS_DATASOURCE_USERNAME", EmbeddedPostgres.USER,
        "QUARKUS_DATASOURCE_PASSWORD", EmbeddedPostgres.PASSWORD,
        "FLEETWAVE_COMMANDS_PRIVATE_KEY", signer.privateKeyPem());
  }
}
