package io.fleetwave.controlplane.rollout.driver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.driver.DriverArtifact;
import io.fleetwave.events.node.HostKind;
import io.smallrye.mutiny.Uni;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletionException;

/**
 * Hands each driver change to an HTTP endpoint ({@code webhook}): a JSON POST to {@code
 * fleetwave.rollout.driver-webhook.url} with the header {@code Idempotency-Key: <request id>}, so
 * the receiver can drop a repeat. Any 2xx answer means handed over. Connecting and the answer are
 * bounded by {@code fleetwave.rollout.driver-webhook.timeout}. Uses the JDK HTTP client.
 */
public final class WebhookDriverExecutor implements DriverChangeExecutor, AutoCloseable {
  public static final String NAME = "webhook";
  public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
  static final int BODY_EXCERPT = 200;

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
  private final ObjectMapper json;
  private final HttpClient http;

  public WebhookDriverExecutor(URI url, Duration timeout, ObjectMapper json) {
    this.url = requireHttp(url);
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
    HttpRequest post;
    try {
      post =
          HttpRequest.newBuilder(url)
              .timeout(timeout)
              .header("Content-Type", "application/json")
              .header(IDEMPOTENCY_KEY, request.id())
              .POST(
                  HttpRequest.BodyPublishers.ofByteArray(
                      json.writeValueAsBytes(Payload.of(request))))
              .build();
    } catch (JsonProcessingException e) {
      return Uni.createFrom()
          .failure(new DriverChangeException(NAME, request, "cannot write the JSON body", e));
    }
    return Uni.createFrom()
        .completionStage(() -> http.sendAsync(post, HttpResponse.BodyHandlers.ofString()))
        // The client's timeout covers the answer's headers; this one the whole exchange.
        .ifNoItem()
        .after(timeout)
        .failWith(() -> new HttpTimeoutException("request timed out"))
        .onFailure()
        .transform(failure -> handOverFailed(request, failure))
        .flatMap(response -> checked(request, response));
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
