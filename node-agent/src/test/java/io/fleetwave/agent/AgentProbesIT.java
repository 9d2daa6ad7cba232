package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fleetwave.agent.health.Probe;
import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.nvml.StubNvmlLibrary;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.events.Topics;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real agent's probes on its metrics port, against a real broker that the test stops and starts
 * again, and a stand-in control plane that refuses to enroll until the test lets it. The broker is
 * the embedded one, not {@code KafkaExtension}'s: only it can be stopped and restarted on its port
 * ({@link EmbeddedKafka#stopBroker()}).
 */
class AgentProbesIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final Pattern SERVED = Pattern.compile("metrics at http://[^ ]+:(\\d+)/metrics");
  private static EmbeddedKafka kafka;

  private final List<Process> agents = new ArrayList<>();
  private HttpServer controlPlane;

  @BeforeAll
  static void broker() {
    kafka = EmbeddedKafka.start();
    kafka.createTopics(1, Topics.NODE_EVENTS, Topics.NODE_COMMANDS);
    kafka.createTopics(1, EmbeddedKafka.compacted(), Topics.NODE_DESIRED);
  }

  @AfterAll
  static void stopBroker() {
    kafka.close();
  }

  /** Stopped by this test and not yet restarted: the next test needs it back. */
  private boolean kafkaStopped;

  private void stopKafka() {
    kafka.stopBroker();
    kafkaStopped = true;
  }

  private void restartKafka() {
    kafka.restartBroker();
    kafkaStopped = false;
  }

  @AfterEach
  void stopAgents() throws Exception {
    if (kafkaStopped) {
      restartKafka();
    }
    for (Process agent : agents) {
      AgentProcess.stop(agent, WAIT);
    }
    if (controlPlane != null) {
      controlPlane.stop(0);
    }
  }

  @Test
  void readyOnlyOnceEnrolledAndAcknowledgedUnreadyWhileKafkaIsDownAliveThroughout()
      throws Exception {
    String node = "probed-node-1";
    Path host = Files.createTempDirectory(Path.of("target"), "probed-host-").toAbsolutePath();
    StubNvmlLibrary.build(host.resolve("usr/lib/x86_64-linux-gnu"));
    new HostTree(host)
        .osRelease("ubuntu", "24.04")
        .kernel("6.8.0-49-generic")
        .hostname(node)
        .mountinfo(HostTree.RW_ROOT_MOUNTINFO)
        .devices("/", 2)
        .bootId("7a1c-probes-boot")
        // An epoch kept from an earlier run: the agent need not read the topic to start, so the
        // broker may be down from its enrolment on.
        .file("var/lib/fleetwave/last-epoch", "7\n");
    AtomicBoolean enrolAccepted = new AtomicBoolean();
    AtomicInteger enrolAsked = new AtomicInteger();
    String url = controlPlane(enrolAccepted, enrolAsked);
    Path log = Files.createTempFile(Path.of("target"), "probed-agent-", ".log");
    Path joinToken =
        Files.writeString(
            host.resolveSibling(host.getFileName() + ".join-token"), "probe-test-join-token\n");
    Probes probes =
        start(
            log,
            node,
            AgentProcess.heartbeating(
                kafka.bootstrapServers(),
                host,
                "--control-plane",
                url,
                "--join-token-file",
                joinToken.toString()));

    await("the agent asks to enroll").atMost(WAIT).until(() -> enrolAsked.get() >= 1);
    assertThat(probes.ask(Probe.READINESS))
        .isEqualTo(new Answer(503, "not ready: not enrolled yet: enrolling with " + url));
    assertThat(probes.ask(Probe.STARTUP))
        .isEqualTo(new Answer(503, "starting: enrolling with " + url));
    assertThat(probes.ask(Probe.LIVENESS).status()).isEqualTo(200);

    // Enrolled while Kafka is down: started, alive, not ready until an event is acknowledged. The
    // agent looks for its topic while it enrolls and exits if Kafka has not served it within 30 s
    // of its start (AgentMain.KAFKA_START_BOUND): Kafka goes once it has (on a loaded machine the
    // enrolment request could come first, and the agent exited).
    await("the agent found its topic (its log: %s)".formatted(log))
        .atMost(WAIT)
        .until(() -> Files.readString(log).contains("serves topic " + Topics.NODE_EVENTS));
    stopKafka();
    enrolAccepted.set(true);
    Answer enrolledUnacknowledged =
        await("enrolled, nothing acknowledged")
            .atMost(WAIT)
            .until(
                () -> probes.ask(Probe.READINESS),
                a -> a.body().endsWith("but Kafka has acknowledged no event of this run yet"));
    assertThat(enrolledUnacknowledged.status()).isEqualTo(503);
    assertThat(enrolledUnacknowledged.body()).startsWith("not ready: enrolled (key sha256:");
    assertThat(
            await("the start is over (marked just after the run begins)")
                .atMost(WAIT)
                .until(() -> probes.ask(Probe.STARTUP), a -> a.status() == 200))
        .isEqualTo(new Answer(200, "started: GPUs up (driver 580.95.05), inventory published"));
    assertThat(probes.ask(Probe.LIVENESS).status()).isEqualTo(200);

    restartKafka();
    Answer ready =
        await("ready once Kafka acknowledges")
            .atMost(WAIT)
            .until(() -> probes.ask(Probe.READINESS), a -> a.status() == 200);
    assertThat(ready.body()).startsWith("ready: enrolled (key sha256:").contains("and publishing");

    // An outage past the publishing bound (30 s): unready, and alive at every answer meanwhile.
    stopKafka();
    List<Answer> liveness = new ArrayList<>();
    Answer unready =
        await("unready while Kafka is down")
            .atMost(WAIT)
            .pollInterval(Duration.ofSeconds(1))
            .until(
                () -> {
                  liveness.add(probes.ask(Probe.LIVENESS));
                  return probes.ask(Probe.READINESS);
                },
                a -> a.status() == 503);
    assertThat(unready.body()).contains("but Kafka has acknowledged no event for");
    assertThat(liveness)
        .hasSizeGreaterThan(20)
        .allSatisfy(a -> assertThat(a.status()).isEqualTo(200));

    restartKafka();
    await("ready again once Kafka is back")
        .atMost(WAIT)
        .until(() -> probes.ask(Probe.READINESS).status() == 200);
    assertThat(probes.ask(Probe.LIVENESS).status()).isEqualTo(200);
    assertThat(probes.ask(Probe.STARTUP).status()).isEqualTo(200);
  }

  @Test
  void waitingForTheDriverIsAFinishedStartAndAliveButOtherPathsAreNotServed() throws Exception {
    String node = "probed-driverless-1";
    Path host = Files.createTempDirectory(Path.of("target"), "probed-host-").toAbsolutePath();
    HostTree.talos(host).hostname(node).bootId("7a1c-driverless-boot");
    Path log = Files.createTempFile(Path.of("target"), "probed-driverless-", ".log");
    Probes probes =
        start(
            log,
            node,
            AgentProcess.heartbeating(
                kafka.bootstrapServers(), host, "--driver-retry-seconds", "1"));

    Answer started =
        await("the start is over")
            .atMost(WAIT)
            .until(() -> probes.ask(Probe.STARTUP), a -> a.status() == 200);
    assertThat(started.body()).startsWith("started: waiting for the driver (no libnvidia-ml.so.1");
    assertThat(probes.ask(Probe.LIVENESS).status()).isEqualTo(200);
    assertThat(
            await("ready: publishing, no enrolment asked for")
                .atMost(WAIT)
                .until(() -> probes.ask(Probe.READINESS), a -> a.status() == 200)
                .body())
        .startsWith("ready: enrolment not configured (no --control-plane: events unsigned)");
    assertThat(probes.ask("/healthz"))
        .isEqualTo(
            new Answer(404, "not found: the agent serves /metrics and /startupz, /livez, /readyz"));
  }

  /** The enrolment endpoint: 503 (the agent tries again) until accepted, then 201. */
  private String controlPlane(AtomicBoolean accepted, AtomicInteger asked) throws IOException {
    controlPlane = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    controlPlane.createContext(
        "/api/v1/nodes/",
        exchange -> {
          try (exchange) {
            asked.incrementAndGet();
            boolean enrol =
                exchange.getRequestMethod().equals("POST")
                    && exchange.getRequestURI().getPath().endsWith("/enrolment")
                    && accepted.get();
            byte[] body =
                (enrol ? "{}" : "{\"detail\":\"the control plane is not ready\"}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(enrol ? 201 : 503, body.length);
            exchange.getResponseBody().write(body);
          }
        });
    controlPlane.start();
    return "http://"
        + controlPlane.getAddress().getHostString()
        + ":"
        + controlPlane.getAddress().getPort();
  }

  private Probes start(Path log, String node, String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--metrics-port", "0", "--metrics-address", "127.0.0.1"));
    agents.add(
        AgentProcess.start(Map.of("NODE_NAME", node), List.of(), log, all.toArray(String[]::new)));
    int port =
        await("the agent logs its metrics port")
            .atMost(WAIT)
            .until(() -> servedPort(log), p -> p > 0);
    return new Probes(URI.create("http://127.0.0.1:" + port));
  }

  private static int servedPort(Path log) throws IOException {
    Matcher served = SERVED.matcher(Files.readString(log));
    return served.find() ? Integer.parseInt(served.group(1)) : -1;
  }

  record Answer(int status, String body) {}

  /** GETs of the agent's probes, as the kubelet makes them. */
  record Probes(URI base) {
    Answer ask(Probe probe) throws Exception {
      return ask(probe.path());
    }

    Answer ask(String path) throws Exception {
      try (HttpClient http =
          HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.body().strip());
      }
    }
  }
}
