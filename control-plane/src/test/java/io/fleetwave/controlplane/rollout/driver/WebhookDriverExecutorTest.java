package io.fleetwave.controlplane.rollout.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The webhook executor against a real local HTTP server. */
class WebhookDriverExecutorTest {
  private static final Duration BOUND = Duration.ofSeconds(10);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What the server received. */
  record Received(String method, String contentType, String idempotencyKey, JsonNode body) {}

  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final CountDownLatch released = new CountDownLatch(1);
  private HttpServer server;
  private volatile int status = 202;
  private volatile String answer = "";
  private volatile boolean stall;

  @BeforeEach
  void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext("/driver-changes", this::handle);
    server.start();
  }

  @AfterEach
  void stopServer() {
    released.countDown();
    server.stop(0);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      received.add(
          new Received(
              exchange.getRequestMethod(),
              exchange.getRequestHeaders().getFirst("Content-Type"),
              exchange.getRequestHeaders().getFirst("Idempotency-Key"),
              JSON.readTree(exchange.getRequestBody())));
      if (stall) {
        // Holds the answer until the test ends: the executor must give up on its own.
        released.await(BOUND.toSeconds(), TimeUnit.SECONDS);
      }
      byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        exchange.getResponseBody().write(bytes);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private WebhookDriverExecutor executor(Duration timeout) {
    return new WebhookDriverExecutor(
        URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/driver-changes"),
        timeout,
        JSON);
  }

  @Test
  void anOsUpgradeIsPostedWithEveryFieldAndItsIdempotencyKey() {
    DriverChangeRequest request = DriverRequests.talos("talos-h200-3");
    try (WebhookDriverExecutor webhook = executor(Duration.ofSeconds(5))) {
      webhook.request(request).await().atMost(BOUND);
    }

    assertThat(received).hasSize(1);
    Received post = received.getFirst();
    assertThat(post.method()).isEqualTo("POST");
    assertThat(post.contentType()).isEqualTo("application/json");
    assertThat(post.idempotencyKey()).isEqualTo(request.id());
    JsonNode body = post.body();
    assertThat(body.get("id").asText()).isEqualTo(request.id());
    assertThat(body.get("rolloutId").asText()).isEqualTo(DriverRequests.ROLLOUT.toString());
    assertThat(body.get("node").asText()).isEqualTo("talos-h200-3");
    assertThat(body.get("hostKind").asText()).isEqualTo("talos");
    assertThat(body.get("fromVersion").asText()).isEqualTo("570.172.08");
    assertThat(body.get("toVersion").asText()).isEqualTo("580.95.05");
    assertThat(body.get("osUpgrade").asBoolean()).isTrue();
    JsonNode artifact = body.get("artifact");
    assertThat(artifact.get("kind").asText()).isEqualTo("os-image");
    assertThat(artifact.get("osId").asText()).isEqualTo("talos");
    assertThat(artifact.get("osVersion").asText()).isEqualTo("v1.10.6");
    assertThat(artifact.get("driverVersion").asText()).isEqualTo("580.95.05");
    assertThat(artifact.get("description").asText())
        .isEqualTo("needs OS image with driver 580.95.05 (talos upgrade)");
  }

  @Test
  void aContainerImageCarriesItsImageAndARepeatCarriesTheSameKey() {
    DriverChangeRequest request = DriverRequests.container("dc-h100-1");
    try (WebhookDriverExecutor webhook = executor(Duration.ofSeconds(5))) {
      webhook.request(request).await().atMost(BOUND);
      webhook.request(request).await().atMost(BOUND);
    }

    assertThat(received).hasSize(2);
    assertThat(received).extracting(Received::idempotencyKey).containsOnly(request.id());
    JsonNode body = received.getFirst().body();
    assertThat(body.get("osUpgrade").asBoolean()).isFalse();
    assertThat(body.get("hostKind").asText()).isEqualTo("ubuntu-driver-container");
    JsonNode artifact = body.get("artifact");
    assertThat(artifact.get("kind").asText()).isEqualTo("container-image");
    assertThat(artifact.get("image").asText())
        .isEqualTo("nvcr.io/nvidia/driver:580.95.05-ubuntu22.04");
    assertThat(artifact.get("tag").asText()).isEqualTo("580.95.05-ubuntu22.04");
    assertThat(received.get(1).body()).isEqualTo(body);
  }

  @Test
  void aHostPackageWithNoDriverBeforeSendsANullFromVersion() {
    try (WebhookDriverExecutor webhook = executor(Duration.ofSeconds(5))) {
      webhook.request(DriverRequests.hostPackage("ubuntu-a100-0")).await().atMost(BOUND);
    }
    JsonNode body = received.getFirst().body();
    assertThat(body.get("fromVersion").isNull()).isTrue();
    assertThat(body.get("artifact").get("kind").asText()).isEqualTo("host-package");
    assertThat(body.get("artifact").get("packageName").asText())
        .isEqualTo("nvidia-driver-580-server");
    assertThat(body.get("artifact").get("packageVersion").asText()).isEqualTo("580.95.05-0ubuntu1");
  }

  @Test
  void aRefusalNamesTheStatusTheNodeAndTheFirst200CharactersOfTheBody() {
    status = 409;
    answer = "x".repeat(200) + "TAIL-NOT-SHOWN";
    try (WebhookDriverExecutor webhook = executor(Duration.ofSeconds(5))) {
      assertThatThrownBy(
              () -> webhook.request(DriverRequests.talos("talos-h200-4")).await().atMost(BOUND))
          .isInstanceOf(DriverChangeException.class)
          .hasMessageContaining("driver executor webhook")
          .hasMessageContaining("node talos-h200-4")
          .hasMessageContaining("answered HTTP 409: " + "x".repeat(200))
          .hasMessageNotContaining("TAIL");
    }
  }

  @Test
  void aWebhookThatDoesNotAnswerFailsWithinTheTimeout() {
    stall = true;
    long start = System.nanoTime();
    try (WebhookDriverExecutor webhook = executor(Duration.ofMillis(300))) {
      assertThatThrownBy(
              () -> webhook.request(DriverRequests.talos("talos-h200-5")).await().atMost(BOUND))
          .isInstanceOf(DriverChangeException.class)
          .hasMessageContaining("node talos-h200-5")
          .hasMessageContaining("gave no answer within PT0.3S");
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
  }

  @Test
  void anUnreachableWebhookSaysItCannotConnect() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    try (WebhookDriverExecutor webhook =
        new WebhookDriverExecutor(
            URI.create("http://127.0.0.1:" + closedPort + "/x"), Duration.ofSeconds(2), JSON)) {
      assertThatThrownBy(
              () -> webhook.request(DriverRequests.talos("talos-h200-6")).await().atMost(BOUND))
          .isInstanceOf(DriverChangeException.class)
          .hasMessageContaining("node talos-h200-6")
          .hasMessageContaining("cannot connect to webhook http://127.0.0.1:" + closedPort);
    }
  }

  @Test
  void aUrlThatIsNotHttpIsRefusedNamingTheSetting() {
    assertThatThrownBy(
            () ->
                new WebhookDriverExecutor(URI.create("ftp://host/x"), Duration.ofSeconds(1), JSON))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fleetwave.rollout.driver-webhook.url")
        .hasMessageContaining("ftp://host/x");
  }
}
