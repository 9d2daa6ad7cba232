package io.fleetwave.agent.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.fleetwave.agent.health.AgentHealth;
import io.fleetwave.agent.health.Probe;
import io.fleetwave.agent.health.Verdict;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * The agent's probes on the metrics port: the Prometheus server's default handler (every path but
 * {@code /metrics} comes here). 200 or 503 with the one-line reason; 404 naming the paths served
 * for any other path, 405 for anything but GET and HEAD.
 */
final class ProbeHandler implements HttpHandler {
  private final AgentHealth health;

  ProbeHandler(AgentHealth health) {
    this.health = health;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      Optional<Probe> probe =
          Arrays.stream(Probe.values())
              .filter(p -> p.path().equals(exchange.getRequestURI().getPath()))
              .findFirst();
      if (probe.isEmpty()) {
        answer(
            exchange,
            404,
            "not found: the agent serves /metrics and "
                + String.join(", ", Arrays.stream(Probe.values()).map(Probe::path).toList()));
      } else if (!method.equals("GET") && !method.equals("HEAD")) {
        answer(exchange, 405, "method " + method + " not allowed: GET or HEAD");
      } else {
        Verdict verdict = health.check(probe.get());
        answer(exchange, verdict.httpStatus(), verdict.reason());
      }
    }
  }

  private static void answer(HttpExchange exchange, int status, String line) throws IOException {
    byte[] body = (line + "\n").getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : body.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }
}
