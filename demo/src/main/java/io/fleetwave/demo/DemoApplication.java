package io.fleetwave.demo;

import io.fleetwave.controlplane.app.FleetwaveApplication;
import io.fleetwave.controlplane.readmodel.SummaryQueries;
import io.fleetwave.simulator.SimulatedFleet;
import io.quarkus.arc.Arc;
import io.quarkus.runtime.Quarkus;
import java.net.URI;
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
  private static final Duration QUERY_BOUND = Duration.ofSeconds(5);

  @Override
  protected void awaitReady(URI base) throws InterruptedException {
    DemoMain.loggingConfigured();
    awaitFleetVisible();
    if (StopSignals.requested()) {
      // A signal during the start: Quarkus forgot the exit it asked for when it began to start.
      Quarkus.asyncExit();
      return;
    }
    // Standard output, not the log: the tokens are for the person at the console.
    System.out.println(DemoConsole.banner(base, DemoIdentity.current()));
  }

  private void awaitFleetVisible() throws InterruptedException {
    Optional<SimulatedFleet> fleet = Arc.container().instance(DemoFleet.class).get().fleet();
    if (fleet.isEmpty()) {
      return;
    }
    int expected = fleet.get().nodes().size();
    // The API's own query, called in-process: the same answer GET /api/v1/fleet/summary gives,
    // without a token.
    SummaryQueries summaries = Arc.container().instance(SummaryQueries.class).get();
    long deadline = System.nanoTime() + VISIBLE_BOUND.toNanos();
    long visible = 0;
    while (System.nanoTime() < deadline && !StopSignals.requested()) {
      try {
        visible = summaries.summary().await().atMost(QUERY_BOUND).totalNodes();
        if (visible >= expected) {
          LOG.infof("demo fleet: all %d nodes visible in the API", expected);
          return;
        }
      } catch (RuntimeException notYet) {
        // The projection or the database is still starting: ask again.
      }
      Thread.sleep(POLL); // the interval of a bounded wait for the fleet to be projected
    }
    LOG.warnf(
        "only %d of the demo fleet's %d nodes are visible in the API after %s",
        visible, expected, VISIBLE_BOUND);
  }
}
