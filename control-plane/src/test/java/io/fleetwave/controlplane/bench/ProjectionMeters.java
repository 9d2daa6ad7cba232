package io.fleetwave.controlplane.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.stream.Collectors;

/**
 * The control plane's own view of the latency phase, from its /q/metrics: how long a batch took
 * from hand-over to acknowledgement and how old its oldest record was when it committed (p50, p99
 * over the meters' recent window, and the max), to tell where the API's delay is spent.
 */
final class ProjectionMeters {
  private ProjectionMeters() {}

  static String read(int managementPort) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest get =
        HttpRequest.newBuilder(URI.create("http://localhost:" + managementPort + "/q/metrics"))
            .timeout(Duration.ofSeconds(10))
            .build();
    String body = http.send(get, HttpResponse.BodyHandlers.ofString()).body();
    return body.lines()
        .filter(
            line ->
                (line.startsWith("fleetwave_projection_batch_duration_seconds")
                        || line.startsWith("fleetwave_projection_batch_staleness_seconds"))
                    && !line.contains("_bucket"))
        .map(line -> "    " + line)
        .collect(Collectors.joining("\n"));
  }
}
