package io.fleetwave.systemtier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * The packaged control plane's HTTP surface as the fault tests call it: the API on its port, health
 * on the management port, every call bounded.
 */
record FaultApi(int port, int managementPort, String token) {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final Duration CALL_BOUND = Duration.ofSeconds(30);

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(
        request(path).timeout(CALL_BOUND).build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
    return HTTP.send(
        request(path)
            .timeout(CALL_BOUND)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  int status(String path) throws IOException, InterruptedException {
    return get(path).statusCode();
  }

  /** The reason a readiness check named {@code check} gives while it is DOWN. */
  Optional<String> downReason(String check) throws IOException, InterruptedException {
    JsonNode health = JSON.readTree(get("/q/health/ready").body());
    for (JsonNode each : health.path("checks")) {
      if (each.path("name").asText().equals(check) && each.path("status").asText().equals("DOWN")) {
        return Optional.of(each.at("/data/reason").asText());
      }
    }
    return Optional.empty();
  }

  JsonNode rebuild() throws IOException, InterruptedException {
    HttpResponse<String> response =
        HTTP.send(
            request("/api/v1/admin/projection/rebuild?timeoutSeconds=300")
                .POST(HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(330))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          "rebuild answered " + response.statusCode() + ": " + response.body());
    }
    return JSON.readTree(response.body());
  }

  HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + token);
  }

  /** Health and metrics are on the management port, everything else on the API's. */
  URI uri(String path) {
    int target =
        path.startsWith("/q/health") || path.startsWith("/q/metrics") ? managementPort : port;
    return URI.create("http://localhost:" + target + path);
  }

  static HttpClient http() {
    return HTTP;
  }
}
