package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.Topics;
import io.fleetwave.testsupport.kafka.NodeEventsReader;
import io.fleetwave.testsupport.services.KafkaExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The real agent against embedded Kafka, its metrics scraped over HTTP as Prometheus would. */
@ExtendWith(KafkaExtension.class)
class AgentMetricsIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Pattern SERVED = Pattern.compile("metrics at http://[^ ]+:(\\d+)/metrics");
  private static KafkaBroker kafka;
  private static Path hostRoot;

  @BeforeAll
  static void hostAndTopics() throws Exception {
    hostRoot = AgentHosts.talosWithStubNvml("agent-host", 2, "5c2e-metrics-boot");
    AgentHosts.createTopics(kafka);
  }

  @Test
  void publishedHeartbeatsCountUpAndTheDrainedOutboxReadsZero() throws Exception {
    Path log = Files.createTempFile(Path.of("target"), "agent-metrics-", ".log");
    Process agent =
        agent(
            "metrics-node-1",
            List.of(),
            log,
            "--metrics-port",
            "0",
            "--metrics-address",
            "127.0.0.1");
    try {
      URI metrics =
          URI.create(
              "http://127.0.0.1:"
                  + await("the agent logs its metrics port")
                      .atMost(WAIT)
                      .until(() -> servedPort(log), port -> port > 0)
                  + "/metrics");
      double first =
          await("a heartbeat acknowledged")
              .atMost(WAIT)
              .until(() -> heartbeatsPublished(scrape(metrics)), count -> count >= 1);
      await("more heartbeats acknowledged")
          .atMost(WAIT)
          .until(() -> heartbeatsPublished(scrape(metrics)), count -> count >= first + 2);

      String drained =
          await("the outbox drained")
              .atMost(WAIT)
              .until(
                  () -> scrape(metrics), text -> value(text, "fleetwave_agent_outbox_events") == 0);
      assertThat(value(drained, "fleetwave_agent_outbox_bytes")).isZero();
      assertThat(value(drained, "fleetwave_agent_gpus_ready")).isEqualTo(1);
      assertThat(value(drained, "fleetwave_agent_events_dropped_total")).isZero();
      assertThat(value(drained, "fleetwave_agent_seconds_since_last_acknowledged_publish"))
          .isBetween(0.0, 30.0);
    } finally {
      AgentProcess.stop(agent, WAIT);
    }
  }

  @Test
  void withoutAMetricsPortNoPrometheusClassIsLoaded() throws Exception {
    Path log = Files.createTempFile(Path.of("target"), "agent-no-metrics-", ".log");
    Process agent = agent("metrics-node-2", List.of("-Xlog:class+load=info"), log);
    try (NodeEventsReader events =
        new NodeEventsReader(kafka.bootstrapServers(), Topics.NODE_EVENTS)) {
      // Two heartbeats, a second apart: well past where a metrics port would have been opened.
      await("two heartbeats published")
          .atMost(WAIT)
          .until(
              () ->
                  events.of("metrics-node-2").stream()
                      .filter(e -> e.type().toLowerCase(Locale.ROOT).contains("heartbeat"))
                      .count(),
              count -> count >= 2);
    } finally {
      AgentProcess.stop(agent, WAIT);
    }
    List<String> lines = Files.readAllLines(log);
    assertThat(lines).noneMatch(line -> line.contains(" io.prometheus."));
    assertThat(lines).noneMatch(line -> line.contains(" io.fleetwave.agent.metrics."));
  }

  /** The agent as {@code node} (NODE_NAME, as its pod sets it), heartbeating each second. */
  private static Process agent(String node, List<String> jvmFlags, Path log, String... options)
      throws Exception {
    return AgentProcess.start(
        Map.of("NODE_NAME", node),
        jvmFlags,
        log,
        AgentProcess.heartbeating(kafka.bootstrapServers(), hostRoot, options));
  }

  private static int servedPort(Path log) throws Exception {
    Matcher served = SERVED.matcher(Files.readString(log));
    return served.find() ? Integer.parseInt(served.group(1)) : -1;
  }

  private static String scrape(URI metrics) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(5)).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      return response.body();
    }
  }

  /** Sum of the published counter over the heartbeat event type (whatever its full type name). */
  private static double heartbeatsPublished(String text) {
    return text.lines()
        .filter(line -> line.startsWith("fleetwave_agent_events_published_total{"))
        .filter(line -> line.toLowerCase(Locale.ROOT).contains("heartbeat"))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        .sum();
  }

  /** The value of a metric without labels; fails naming it when absent. */
  private static double value(String text, String name) {
    return text.lines()
        .filter(line -> line.startsWith(name + " "))
        .mapToDouble(line -> Double.parseDouble(line.substring(name.length() + 1).trim()))
        .findFirst()
        .orElseThrow(() -> new AssertionError(name + " not in\n" + text));
  }
}
