package io.fleetwave.controlplane.rollout.driver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.events.node.HostKind;
import io.smallrye.mutiny.Uni;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Hands each driver change to an HTTP endpoint ({@code webhook}): a JSON POST to {@code
 * fleetwave.rollout.driver-webhook.url} with the header {@code Idempotency-Key: <request id>}, so
 * the receiver can drop a repeat, and signed as Standard Webhooks 1.0 signs ({@link
 * WebhookSigningKey}): {@code webhook-id} (the request id, base64url, so a repeat carries the
 * same), {@code webhook-timestamp} (Unix seconds of this attempt, which bounds a replay to the
 * receiver's tolerance) and {@code webhook-signature}. Any 2xx answer means handed over. Connecting
 * and the whole answer are bounded by {@code fleetwave.rollout.driver-webhook.timeout}, and the
 * answer's body by {@value #MAX_ANSWER_BYTES} bytes: a receiver that answers endlessly or slowly is
 * cut off with an error, never read into memory. Uses the JDK HTTP client.
 */
public final class WebhookDriverExecutor implements DriverChangeExecutor, AutoCloseable {
  public static final String NAME = "webhook";
  public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
  public static final String WEBHOOK_ID = "webhook-id";
  public static final String WEBHOOK_TIMESTAMP = "webhook-timestamp";
  public static final String WEBHOOK_SIGNATURE = "webhook-signature";
  static final int BODY_EXCERPT = 200;

  /** Enough for any error a receiver explains; the 2xx answer's body is not used. */
  static final int MAX_ANSWER_BYTES = 64 * 1024;

  /** The JDK's words when {@link HttpResponse.BodySubscribers#limiting} cuts a body off. */
  private static final String CUT_OFF = "body exceeds capacity: " + MAX_ANSWER_BYTES;

  /** The JSON body: the request, the target version and the OS-upgrade flag spelled out. */
  record Payload(
      String id,
      UUID rolloutId,
      String node,
      HostKind hostKind,
      String fromVersion,
      String toVersion,
      DriverArtifact artifact,
      boolean osUpgrade) {
    static Payload of(DriverChangeRequest request) {
      return new Payload(
          request.id(),
          request.rolloutId(),
          request.node(),
          request.hostKind(),
          request.fromVersion(),
          request.toVersion(),
          request.artifact(),
          request.osUpgrade());
    }
  }

  private final URI url;
  private final Duration timeout;
  private final WebhookSigningKey key;
  private final Clock clock;
  private final ObjectMapper json;
  private final HttpClient http;

  public WebhookDriverExecutor(
      URI url, Duration timeout, WebhookSigningKey key, Clock clock, ObjectMapper json) {
    this.url = requireHttp(url);
    this.key = Objects.requireNonNull(key, "key");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException(
          "fleetwave.rollout.driver-webhook.timeout must be positive, was " + timeout);
    }
    this.json = Objects.requireNonNull(json, "json");
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  private static URI requireHttp(URI url) {
    Objects.requireNonNull(url, "url");
    String scheme = url.getScheme();
    if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme)) {
      throw new IllegalArgumentException(
          "fleetwave.rollout.driver-webhook.url must be an http or https URL, was '" + url + "'");
    }
    return url;
  }

  @Override
  public String name() {
    return NAME;
  }

  public URI url() {
    return url;
  }

  @Override
  public Uni<Void> request(DriverChangeRequest request) {
    byte[] body;
    try {
      body = json.writeValueAsBytes(Payload.of(request));
    } catch (JsonProcessingException e) {
      return Uni.createFrom()
          .failure(new DriverChangeException(NAME, request, "cannot write the JSON body", e));
    }
    // Standard Webhooks signs "<id>.<timestamp>.<body>" and asks for ids without a dot (node names
    // have dots), so the id goes base64url.
    String id =
        Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(request.id().getBytes(StandardCharsets.UTF_8));
    long timestamp = clock.instant().getEpochSecond();
    HttpRequest post =
        HttpRequest.newBuilder(url)
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header(IDEMPOTENCY_KEY, request.id())
            .header(WEBHOOK_ID, id)
            .header(WEBHOOK_TIMESTAMP, Long.toString(timestamp))
            .header(WEBHOOK_SIGNATURE, key.sign(id, timestamp, body))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    return Uni.createFrom()
        .deferred(() -> exchange(post))
        .onFailure()
        .transform(failure -> handOverFailed(request, failure))
        .flatMap(response -> checked(request, response));
  }

  /**
   * One POST, its whole exchange bounded by the timeout (the client's own covers only the answer's
   * headers). Giving up cancels the exchange with {@code cancel(true)}, which closes its
   * connection: otherwise a receiver that trickles its body would hold it open for ever, and {@link
   * #close()} (the client's) would wait for it. Mutiny gets a copy, since its own cancel(false) of
   * the future it was given would complete the exchange's future and so make cancel(true) a no-op.
   */
  private Uni<HttpResponse<String>> exchange(HttpRequest post) {
    CompletableFuture<HttpResponse<String>> exchange =
        http.sendAsync(
            post,
            HttpResponse.BodyHandlers.limiting(
                HttpResponse.BodyHandlers.ofString(), MAX_ANSWER_BYTES));
    return Uni.createFrom()
        .completionStage(exchange.copy())
        .ifNoItem()
        .after(timeout)
        .failWith(() -> new HttpTimeoutException("request timed out"))
        .onTermination()
        .invoke(() -> exchange.cancel(true));
  }

  private Uni<Void> checked(DriverChangeRequest request, HttpResponse<String> response) {
    int status = response.statusCode();
    if (status >= 200 && status < 300) {
      return Uni.createFrom().voidItem();
    }
    String body = response.body() == null ? "" : response.body();
    String excerpt = body.length() > BODY_EXCERPT ? body.substring(0, BODY_EXCERPT) + "…" : body;
    return Uni.createFrom()
        .failure(
            new DriverChangeException(
                NAME,
                request,
                "webhook " + url + " answered HTTP " + status + ": " + excerpt.strip()));
  }

  private Throwable handOverFailed(DriverChangeRequest request, Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    String reason =
        switch (cause) {
          case HttpConnectTimeoutException t ->
              "cannot connect to webhook " + url + " within " + timeout;
          case HttpTimeoutException t -> "webhook " + url + " gave no answer within " + timeout;
          case IOException e when CUT_OFF.equals(e.getMessage()) ->
              "webhook "
                  + url
                  + " answered with a body of more than "
                  + MAX_ANSWER_BYTES
                  + " bytes; cut off there";
          case ConnectException c ->
              "cannot connect to webhook "
                  + url
                  + ": "
                  + Objects.toString(c.getMessage(), "refused");
          default -> "POST to webhook " + url + " failed: " + cause;
        };
    return new DriverChangeException(NAME, request, reason, cause);
  }

  @Override
  public void close() {
    http.close();
  }
}
