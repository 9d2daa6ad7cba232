package io.fleetwave.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.app.FleetwaveApplication;
import io.fleetwave.simulator.SimulatedFleet;
import io.quarkus.arc.Arc;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The demo's application: "Fleetwave is ready" is printed once the whole simulated fleet is visible
 * in the API, so the person who started the demo finds every node when they open the dashboard.
 */
public class DemoApplication extends FleetwaveApplication {
  private static final Logger LOG = Logger.getLogger(DemoApplication.class);
  static final Duration VISIBLE_BOUND = Duration.ofSeconds(120);
  private static final Duration POLL = Duration.ofMillis(250);
  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  protected void awaitReady(URI base) throws InterruptedException {
    Optional<SimulatedFleet> fleet = Arc.container().instance(DemoFleet.class).get().fleet();
    if (fleet.isEmpty()) {
      return;
    }
    int expected = fleet.get().nodes().size();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest summary =
        HttpRequest.newBuilder(base.resolve("api/v1/fleet/summary"))
            .timeout(Duration.ofSeconds(5))
            .build();
    long deadline = System.nanoTime() + VISIBLE_BOUND.toNanos();
    int visible = 0;
    while (System.nanoTime() < deadline) {
      try {
        HttpResponse<String> response = http.send(summary, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          visible = JSON.readTree(response.body()).path("totalNodes").asInt();
          if (visible >= expected) {
            LOG.infof("demo fleet: all %d nodes visible in the API", expected);
            return;
          }
        }
      } catch (IOException notYet) {
        // The projection or the server is still starting: ask again.
      }
      Thread.sleep(POLL); // the interval of a bounded wait for the fleet to be projected
    }
    LOG.warnf(
        "only %d of the demo fleet's %d nodes are visible in the API after %s",
        visible, expected, VISIBLE_BOUND);
  }
}
