package io.fleetwave.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fleetwave.testsupport.network.StandInHttp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What fleetctl sends, seen by a stand-in API (the JDK's HttpServer). */
class StandInApiTest {
  private HttpServer server;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();

  /** Nodes n0..n(count-1), paged as the API pages them. */
  private String serveNodes(int count) throws IOException {
    server = StandInHttp.loopbackServer();
    server.createContext(
        "/api/v1/nodes",
        exchange -> {
          requests.add(exchange.getRequestURI().toString());
          String auth = exchange.getRequestHeaders().getFirst("Authorization");
          authorizations.add(auth == null ? "none" : auth);
          Map<String, String> query = query(exchange);
          int page = Integer.parseInt(query.getOrDefault("page", "0"));
          int size = Integer.parseInt(query.getOrDefault("size", "50"));
          StringBuilder items = new StringBuilder();
          for (int i = page * size; i < Math.min(count, (page + 1) * size); i++) {
            items
                .append(items.isEmpty() ? "" : ",")
                .append("{\"name\": \"n")
                .append(i)
                .append("\"}");
          }
          StandInHttp.sendJson(
              exchange,
              200,
              "{\"items\": [%s], \"page\": %d, \"size\": %d, \"total\": %d}"
                  .formatted(items, page, size, count));
        });
    server.start();
    return StandInHttp.url(server);
  }

  private static Map<String, String> query(HttpExchange exchange) {
    String raw = exchange.getRequestURI().getRawQuery();
    java.util.Map<String, String> params = new java.util.HashMap<>();
    if (raw != null) {
      for (String pair : raw.split("&", -1)) {
        String[] kv = pair.split("=", 2);
        params.put(kv[0], java.net.URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
      }
    }
    return params;
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void nodesListWalksEveryPage() throws Exception {
    String url = serveNodes(1203);
    Run run = Run.of("nodes", "list", "-o", "json", "--server", url, "-l", "pool in (a,b)");
    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode nodes = Fleetctl.JSON.readTree(run.out());
    assertThat(nodes).hasSize(1203);
    assertThat(nodes.get(1202).path("name").asText()).isEqualTo("n1202");
    assertThat(requests)
        .containsExactly(
            "/api/v1/nodes?selector=pool%20in%20%28a%2Cb%29&page=0&size=500",
            "/api/v1/nodes?selector=pool%20in%20%28a%2Cb%29&page=1&size=500",
            "/api/v1/nodes?selector=pool%20in%20%28a%2Cb%29&page=2&size=500");
  }

  @Test
  void asOfAsksTheApiForTheFleetAtThatTime() throws Exception {
    String url = serveNodes(3);
    String time = "2026-12-05T04:12:00+01:00";
    Run list = Run.of("nodes", "list", "-o", "json", "--server", url, "--as-of", time);
    assertThat(list.exit()).as(list.err()).isZero();
    Run get = Run.of("nodes", "get", "n1", "-o", "json", "--server", url, "--as-of", time);
    assertThat(get.exit()).as(get.err()).isZero();
    assertThat(requests)
        .containsExactly(
            "/api/v1/nodes?asOf=2026-12-05T04%3A12%3A00%2B01%3A00&page=0&size=500",
            "/api/v1/nodes/n1?asOf=2026-12-05T04%3A12%3A00%2B01%3A00");
  }

  @Test
  void rolloutActionsPostTheirOwnNameWithTheReason() throws Exception {
    server = StandInHttp.loopbackServer();
    server.createContext(
        "/api/v1/rollouts",
        exchange -> {
          requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
          StandInHttp.sendJson(
              exchange, 200, "{\"name\": \"r1\", \"state\": \"paused\", \"currentWave\": 1}");
        });
    server.start();
    String url = StandInHttp.url(server);
    Run pause = Run.of("rollout", "pause", "r-1", "--server", url, "--reason", "checking");
    assertThat(pause.exit()).as(pause.err()).isZero();
    assertThat(pause.out()).isEqualTo("pause: rollout r1 paused, wave 1/0\n");
    Run abort = Run.of("rollout", "abort", "r-1", "--server", url, "-r", "too late");
    assertThat(abort.exit()).as(abort.err()).isZero();
    assertThat(requests)
        .containsExactly(
            "POST /api/v1/rollouts/r-1/pause?reason=checking",
            "POST /api/v1/rollouts/r-1/abort?reason=too%20late");
  }

  @Test
  void theTokenIsSentAsABearerFromTheOptionOrTheEnvironment() throws Exception {
    String url = serveNodes(1);
    assertThat(Run.of("nodes", "list", "--server", url).exit()).isZero();
    assertThat(
            Run.of(Map.of("FLEETWAVE_TOKEN", "from-env"), "nodes", "list", "--server", url).exit())
        .isZero();
    assertThat(
            Run.of(
                    Map.of("FLEETWAVE_TOKEN", "from-env", "FLEETWAVE_URL", url),
                    "nodes",
                    "list",
                    "--token",
                    "from-option")
                .exit())
        .isZero();
    assertThat(authorizations).containsExactly("none", "Bearer from-env", "Bearer from-option");
  }
}
