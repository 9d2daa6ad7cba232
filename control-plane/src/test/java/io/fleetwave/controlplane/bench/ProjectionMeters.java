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

  /**
   * How many batches the projection acknowledged and their summed duration, so far. Two of them
   * around a phase give that phase's own batches; the quantiles cannot, as their window (minutes)
   * still holds the backlog's batches.
   */
  record Batches(double count, double seconds) {
    static Batches read(int managementPort) throws Exception {
      double count = 0;
      double seconds = 0;
      for (String line : metrics(managementPort).lines().toList()) {
        if (line.startsWith("fleetwave_projection_batch_duration_seconds_count")) {
          count = value(line);
        } else if (line.startsWith("fleetwave_projection_batch_duration_seconds_sum")) {
          seconds = value(line);
        }
      }
      return new Batches(count, seconds);
    }

    private static double value(String line) {
      return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
    }

    /** The batches between {@code before} and this, per second of {@code phase}, and their mean. */
    String since(Batches before, Duration phase) {
      double batches = count - before.count;
      return "    batches of the phase (warm-up included): %.0f, %.1f a second, mean %.1f ms"
          .formatted(
              batches,
              batches / (phase.toMillis() / 1000.0),
              batches == 0 ? 0 : 1000 * (seconds - before.seconds) / batches);
    }
  }

  static String read(int managementPort) throws Exception {
    return metrics(managementPort)
        .lines()
        .filter(
            line ->
                (line.startsWith("fleetwave_projection_batch_duration_seconds")
                        || line.startsWith("fleetwave_projection_batch_staleness_seconds"))
                    && !line.contains("_bucket"))
        .map(line -> "    " + line)
        .collect(Collectors.joining("\n"));
  }

  private static String metrics(int managementPort) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest get =
        HttpRequest.newBuilder(URI.create("http://localhost:" + managementPort + "/q/metrics"))
            .timeout(Duration.ofSeconds(10))
            .build();
    return http.send(get, HttpResponse.BodyHandlers.ofString()).body();
  }
}
