package io.fleetwave.controlplane.rollout.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.EmptyWebhookSecretException;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fleetwave.controlplane.api.CoreJson;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The webhook executor against a real local HTTP server that checks each request's signature as a
 * receiver would: with the Standard Webhooks reference library, refusing a bad one with 401. Each
 * test is bounded, closing the executor included: an exchange it gave up on and left open would
 * hold its close for ever.
 */
@Timeout(30)
class WebhookDriverExecutorTest {
  private static final Duration BOUND = Duration.ofSeconds(10);
  // The application's mapper has the core's JSON forms (CoreJson), as the producer's injected one.
  private static final ObjectMapper JSON = CoreJson.mapper();
  static final String SECRET = "whsec_" + Base64.getEncoder().encodeToString(bytes(32, 7));

  /** What the server received, and whether the signature held. */
  record Received(
      String method,
      String contentType,
      String idempotencyKey,
      JsonNode body,
      String rawBody,
      Map<String, List<String>> headers,
      boolean verified) {}

  /** How the server answers. */
  enum Answer {
    PLAIN,
    STALL,
    ENDLESS,
    TRICKLE
  }

  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final CountDownLatch released = new CountDownLatch(1);
  private HttpServer server;
  private volatile int status = 202;
  private volatile String answer = "";
  private volatile Answer mode = Answer.PLAIN;

  private static byte[] bytes(int length, int seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

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
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      Map<String, List<String>> headers = Map.copyOf(exchange.getRequestHeaders());
      String refusal = refusal(body, headers);
      received.add(
          new Received(
              exchange.getRequestMethod(),
              exchange.getRequestHeaders().getFirst("Content-Type"),
              exchange.getRequestHeaders().getFirst("Idempotency-Key"),
              JSON.readTree(body),
              body,
              headers,
              refusal == null));
      if (refusal != null) {
        send(exchange, 401, refusal.getBytes(StandardCharsets.UTF_8));
        return;
      }
      switch (mode) {
        case PLAIN -> send(exchange, status, answer.getBytes(StandardCharsets.UTF_8));
        case STALL -> {
          // Holds the answer until the test ends: the executor must give up on its own.
          released.await(BOUND.toSeconds(), TimeUnit.SECONDS);
          send(exchange, status, new byte[0]);
        }
        case ENDLESS -> stream(exchange, 16 * 1024, Duration.ZERO);
        case TRICKLE -> stream(exchange, 1, Duration.ofMillis(20));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The receiver's check: null when the signature holds, else the library's reason. */
  private static String refusal(String body, Map<String, List<String>> headers) {
    try {
      new Webhook(SECRET).verify(body, headers);
      return null;
    } catch (WebhookVerificationException | EmptyWebhookSecretException e) {
      return "signature refused: " + e.getMessage();
    }
  }

  private static void send(HttpExchange exchange, int status, byte[] bytes) throws IOException {
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      exchange.getResponseBody().write(bytes);
    }
  }

  /** A 200 whose chunked body never ends: it stops when the client hangs up or the test ends. */
  private void stream(HttpExchange exchange, int chunk, Duration pause)
      throws IOException, InterruptedException {
    exchange.sendResponseHeaders(200, 0);
    byte[] bytes = new byte[chunk];
    Arrays.fill(bytes, (byte) 'x');
    while (released.getCount() > 0) {
      exchange.getResponseBody().write(bytes);
      exchange.getResponseBody().flush();
      if (!pause.isZero()) {
        released.await(pause.toMillis(), TimeUnit.MILLISECONDS);
      }
    }
  }

  private URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/driver-changes");
  }

  private WebhookDriverExecutor executor(Duration timeout) {
    return executor(timeout, SECRET, Clock.systemUTC());
  }

  private WebhookDriverExecutor executor(Duration timeout, String secret, Clock clock) {
    return new WebhookDriverExecutor(
        url(), timeout, WebhookSigningKey.parse(secret, "the test"), clock, JSON);
  }

  /** The change to a Talos node fails, naming the node and the executor. */
  private static AbstractThrowableAssert<?, ? extends Throwable> assertFails(
      WebhookDriverExecutor webhook, String node) {
    return assertThatThrownBy(
            () -> webhook.request(DriverRequests.talos(node)).await().atMost(BOUND))
        .isInstanceOf(DriverChangeException.class)
        .hasMessageContaining("driver executor webhook")
        .hasMessageContaining("node " + node);
  }

  /**
   * With the webhook answering as {@code answer}, the change to a Talos node fails with {@code
   * reason} under an executor of this {@code timeout}, and sooner than {@code within}.
   */
  private void assertFailsWithin(
      Answer answer, Duration timeout, String node, String reason, Duration within) {
    mode = answer;
    long start = System.nanoTime();
    try (WebhookDriverExecutor webhook = executor(timeout)) {
      assertFails(webhook, node).hasMessageContaining(reason);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(within);
  }

  /** Sends what the executor sent, with the body and headers changed as an attacker would. */
  private int resend(Received original, String body, Map<String, String> changedHeaders)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(url())
            .timeout(BOUND)
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    for (String name :
        List.of(
            "Content-Type",
            WebhookDriverExecutor.WEBHOOK_ID,
            WebhookDriverExecutor.WEBHOOK_TIMESTAMP,
            WebhookDriverExecutor.WEBHOOK_SIGNATURE)) {
      request.header(
          name, changedHeaders.getOrDefault(name.toLowerCase(Locale.ROOT), header(original, name)));
    }
    try (HttpClient client = HttpClient.newHttpClient()) {
      return client.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
  }

  private static String header(Received received, String name) {
    return received.headers().entrySet().stream()
        .filter(e -> e.getKey().equalsIgnoreCase(name))
        .map(e -> e.getValue().getFirst())
        .findFirst()
        .orElseThrow(() -> new AssertionError("the executor sent no " + name + " header"));
  }

  @Test
  void anOsUpgradeIsPostedWithEveryFieldAndItsIdempotencyKey() {
    DriverChangeRequest request = DriverRequests.talos("talos-h200-3");
    try (WebhookDriverExecutor webhook = executor(Duration.ofSeconds(5))) {
      webhook.request(request).await().atMost(BOUND);
    }

    assertThat(received).hasSize(1);
    Received post = received.getFirst();
    assertThat(post.verified()).as("the receiver's signature check").isTrue();
    assertThat(header(post, "webhook-id"))
        .isEqualTo(
            Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(request.id().getBytes(StandardCharsets.UTF_8)))
        .doesNotContain(".");
    assertThat(Long.parseLong(header(post, "webhook-timestamp")))
        .isCloseTo(Instant.now().getEpochSecond(), within(60L));
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
      assertFails(webhook, "talos-h200-4")
          .hasMessageContaining("driver executor webhook")
          .hasMessageContaining("node talos-h200-4")
          .hasMessageContaining("answered HTTP 409: " + "x".repeat(200))
          .hasMessageNotContaining("TAIL");
    }
  }

  @Test
  void aTamperedBodyUnderTheSignatureOfTheRealOneIsRefusedByTheReceiver() throws Exception {
    try (WebhookDriverExecutor webhook = executor(Duration.ofSeconds(5))) {
      webhook.request(DriverRequests.talos("talos-h200-7")).await().atMost(BOUND);
    }
    Received original = received.getFirst();
    assertThat(original.verified()).isTrue();

    String tampered = original.rawBody().replace("580.95.05", "535.54.03");
    assertThat(tampered).isNotEqualTo(original.rawBody());
    assertThat(resend(original, tampered, Map.of())).isEqualTo(401);
    assertThat(received.getLast().verified()).isFalse();
    // The same bytes again are accepted: a replay within the receiver's tolerance is what the
    // idempotency key is for.
    assertThat(resend(original, original.rawBody(), Map.of())).isEqualTo(202);
  }

  @Test
  void aSignatureMovedToAFresherTimestampIsRefusedByTheReceiver() throws Exception {
    try (WebhookDriverExecutor webhook = executor(Duration.ofSeconds(5))) {
      webhook.request(DriverRequests.talos("talos-h200-8")).await().atMost(BOUND);
    }
    Received original = received.getFirst();
    long fresher = Long.parseLong(header(original, "webhook-timestamp")) + 1;

    assertThat(resend(original, original.rawBody(), Map.of("webhook-timestamp", "" + fresher)))
        .isEqualTo(401);
  }

  @Test
  void aRequestSignedWithAnotherSecretIsRefusedAndTheRefusalReported() {
    String other = "whsec_" + Base64.getEncoder().encodeToString(bytes(32, 8));
    try (WebhookDriverExecutor webhook =
        executor(Duration.ofSeconds(5), other, Clock.systemUTC())) {
      assertFails(webhook, "talos-h200-9")
          .hasMessageContaining("answered HTTP 401: signature refused");
    }
  }

  @Test
  void aRequestStampedBeyondTheReceiversToleranceIsRefused() {
    // What a replay captured six minutes ago looks like to the receiver.
    Clock sixMinutesAgo = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-6));
    try (WebhookDriverExecutor webhook = executor(Duration.ofSeconds(5), SECRET, sixMinutesAgo)) {
      assertFails(webhook, "talos-h200-10")
          .hasMessageContaining("answered HTTP 401: signature refused: Message timestamp too old");
    }
  }

  @Test
  void anAnswerLargerThanTheBoundIsCutOffWithAnError() {
    answer = "x".repeat(8 * 1024 * 1024);
    status = 200;
    try (WebhookDriverExecutor webhook = executor(Duration.ofSeconds(5))) {
      assertFails(webhook, "talos-h200-11")
          .hasMessageContaining("answered with a body of more than 65536 bytes; cut off there");
    }
  }

  @Test
  void anEndlessAnswerIsCutOffAtTheBoundLongBeforeTheTimeout() {
    assertFailsWithin(
        Answer.ENDLESS,
        Duration.ofSeconds(8),
        "talos-h200-12",
        "answered with a body of more than 65536 bytes; cut off there",
        Duration.ofSeconds(5));
  }

  @Test
  void anAnswerThatTricklesForeverFailsWithinTheTimeout() {
    assertFailsWithin(
        Answer.TRICKLE,
        Duration.ofMillis(500),
        "talos-h200-13",
        "gave no answer within PT0.5S",
        Duration.ofSeconds(3));
  }

  @Test
  void aWebhookThatDoesNotAnswerFailsWithinTheTimeout() {
    assertFailsWithin(
        Answer.STALL,
        Duration.ofMillis(300),
        "talos-h200-5",
        "gave no answer within PT0.3S",
        Duration.ofSeconds(3));
  }

  @Test
  void anUnreachableWebhookSaysItCannotConnect() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    try (WebhookDriverExecutor webhook =
        new WebhookDriverExecutor(
            URI.create("http://127.0.0.1:" + closedPort + "/x"),
            Duration.ofSeconds(2),
            WebhookSigningKey.parse(SECRET, "the test"),
            Clock.systemUTC(),
            JSON)) {
      assertFails(webhook, "talos-h200-6")
          .hasMessageContaining("cannot connect to webhook http://127.0.0.1:" + closedPort);
    }
  }

  @Test
  void aUrlThatIsNotHttpIsRefusedNamingTheSetting() {
    assertThatThrownBy(
            () ->
                new WebhookDriverExecutor(
                    URI.create("ftp://host/x"),
                    Duration.ofSeconds(1),
                    WebhookSigningKey.parse(SECRET, "the test"),
                    Clock.systemUTC(),
                    JSON))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fleetwave.rollout.driver-webhook.url")
        .hasMessageContaining("ftp://host/x");
  }
}
