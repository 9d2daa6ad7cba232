package io.fleetwave.controlplane.fleetview;

import io.fleetwave.controlplane.config.FleetViewConfig;
import io.fleetwave.controlplane.readmodel.FleetTally;
import io.fleetwave.controlplane.readmodel.FleetTallyRows;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduler;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Compares the in-memory fleet view with the tables every {@code
 * fleetwave.fleet-view.compare-every}: every node that both hold at the same position must be
 * counted alike, as both folded the same events. A node that differs is logged, counted ({@code
 * fleetwave_fleet_view_repaired_total}) and set in the view as the tables hold it, the durable
 * copy.
 */
@ApplicationScoped
public class FleetViewComparison {
  private static final Logger LOG = Logger.getLogger(FleetViewComparison.class);

  /** Differing nodes named in one log line at most. */
  private static final int NAMED = 10;

  private final FleetView view;
  private final FleetTallyRows tables;
  private final FleetViewConfig config;
  private final Counter repaired;

  public FleetViewComparison(
      FleetView view, FleetTallyRows tables, FleetViewConfig config, MeterRegistry registry) {
    this.view = view;
    this.tables = tables;
    this.config = config;
    this.repaired =
        Counter.builder("fleetwave.fleet.view.repaired")
            .description(
                "Nodes the in-memory fleet view counted otherwise than the tables at the same"
                    + " position, set as the tables hold them (0 unless something is wrong)")
            .register(registry);
  }

  void schedule(@Observes StartupEvent event, Scheduler scheduler) {
    scheduler
        .newJob("fleet-view-comparison")
        .setInterval(config.compareEvery().toString())
        .setConcurrentExecution(Scheduled.ConcurrentExecution.SKIP)
        .setAsyncTask(execution -> compare().replaceWithVoid())
        .schedule();
  }

  /** One comparison; empty when the view is not ready. */
  Uni<Optional<FleetTally.Comparison>> compare() {
    Optional<FleetTally> tally = view.readyTally();
    if (tally.isEmpty()) {
      return Uni.createFrom().item(Optional.empty());
    }
    return tables
        .read()
        .map(rows -> tally.get().compareWith(rows))
        .invoke(this::report)
        .map(Optional::of)
        .onFailure()
        .recoverWithItem(
            failure -> {
              LOG.warnf(
                  "the fleet view was not compared with the tables: %s (next try in %s)",
                  failure.toString(), config.compareEvery());
              return Optional.empty();
            });
  }

  private void report(FleetTally.Comparison comparison) {
    if (comparison.repaired().isEmpty()) {
      LOG.debugf(
          "fleet view equal to the tables: %d nodes compared, %d at another position",
          comparison.compared(), comparison.passedOver());
      return;
    }
    repaired.increment(comparison.repaired().size());
    LOG.warnf(
        "fleet view: %d of %d nodes compared differed from the tables at the same position and"
            + " were set as the tables hold them: %s",
        comparison.repaired().size(),
        comparison.compared(),
        comparison.repaired().stream().limit(NAMED).toList());
  }
}
