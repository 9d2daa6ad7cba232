package io.fleetwave.controlplane.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.events.codec.EventCodec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The rollout API of the control plane under benchmark. */
final class RolloutApi {
  private static final Duration CALL_BOUND = Duration.ofSeconds(60);

  private final HttpClient http = HttpClient.newHttpClient();
  private final String base;

  RolloutApi(int port) {
    this.base = "http://localhost:" + port + "/api/v1/rollouts";
  }

  /** Creates the rollout; returns the stored rollout (id, plan). */
  JsonNode create(String spec) throws IOException, InterruptedException {
    HttpRequest post =
        HttpRequest.newBuilder(URI.create(base))
            .timeout(CALL_BOUND)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(spec))
            .build();
    HttpResponse<String> response = http.send(post, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 201) {
      throw new IllegalStateException(
          "creating the rollout answered " + response.statusCode() + ": " + response.body());
    }
    return EventCodec.mapper().readTree(response.body());
  }

  JsonNode get(String path) throws IOException, InterruptedException {
    HttpRequest get = HttpRequest.newBuilder(URI.create(base + path)).timeout(CALL_BOUND).build();
    HttpResponse<String> response = http.send(get, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          "GET " + base + path + " answered " + response.statusCode() + ": " + response.body());
    }
    return EventCodec.mapper().readTree(response.body());
  }

  /** Waits (bounded) until the rollout leaves the running states; returns its last view. */
  JsonNode awaitFinished(String id, Duration bound) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    JsonNode view = get("/" + id);
    while (System.nanoTime() < deadline) {
      String state = view.path("state").asText();
      if (state.equals("completed") || state.equals("aborted") || state.equals("paused")) {
        return view;
      }
      Thread.sleep(500); // polling interval of a bounded wait
      view = get("/" + id);
    }
    throw new IllegalStateException(
        "rollout " + id + " not finished within " + bound + "; last seen: " + view);
  }

  /** Every event of the rollout, paging through the API's 1000-event pages. */
  List<JsonNode> events(String id) throws IOException, InterruptedException {
    List<JsonNode> all = new ArrayList<>();
    long after = 0;
    while (true) {
      JsonNode page = get("/" + id + "/events?after=" + after);
      if (page.isEmpty()) {
        return all;
      }
      page.forEach(all::add);
      after = page.get(page.size() - 1).get("seq").asLong();
    }
  }
}
