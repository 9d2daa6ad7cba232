package io.fleetwave.controlplane.metrics;

import io.fleetwave.controlplane.config.MetricsConfig;
import io.fleetwave.controlplane.readmodel.DriftQueries;
import io.fleetwave.controlplane.readmodel.OperationsQueries;
import io.fleetwave.controlplane.readmodel.OperationsQueries.ActiveRollout;
import io.fleetwave.controlplane.readmodel.OperationsQueries.FleetHealth;
import io.fleetwave.controlplane.rollout.store.RolloutProgressReader;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * Recomputes the projection's gauges on a schedule rather than per scrape, so Prometheus' scrape
 * rate never becomes query load. Rollout gauges carry the rollout's id and name; a finished
 * rollout's series disappear. A failed refresh keeps the last values and is logged once until a
 * refresh succeeds again (the database being away is reported by readiness, not here).
 */
@ApplicationScoped
public class FleetGauges {
  private static final Logger LOG = Logger.getLogger(FleetGauges.class);

  private final OperationsQueries queries;
  private final MetricsConfig config;
  private final AtomicReference<FleetHealth> fleet =
      new AtomicReference<>(new FleetHealth(0, 0, 0));
  private final MultiGauge rolloutNodes;
  private final MultiGauge driftedNodes;
  private final DriftQueries drift;
  private final MultiGauge rolloutWave;
  private final MultiGauge rolloutPaused;
  private final MultiGauge rolloutOverdue;
  private final AtomicReference<Integer> active = new AtomicReference<>(0);
  private volatile boolean failing;
  private volatile boolean stopping;

  public FleetGauges(
      OperationsQueries queries, DriftQueries drift, MetricsConfig config, MeterRegistry registry) {
    this.queries = queries;
    this.drift = drift;
    this.config = config;
    Gauge.builder("fleetwave.fleet.nodes.not.converged", fleet, f -> f.get().notConverged())
        .description("Nodes not at their desired spec or driver version")
        .register(registry);
    Gauge.builder("fleetwave.fleet.nodes.silent", fleet, f -> f.get().silent())
        .description("Nodes with no event for longer than fleetwave.metrics.silent-after")
        .register(registry);
    Gauge.builder("fleetwave.projection.staleness", fleet, f -> f.get().newestEventAgeSeconds())
        .description("Age of the newest projected node event (heartbeats keep it low)")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder("fleetwave.rollouts.active", active, a -> a.get())
        .description("Rollouts not finished (created, running, paused, rolling back)")
        .register(registry);
    // Each meter is built with its name written out: deploy's AlertsTest reads the names from this
    // source to check that every alert reads a metric the control plane serves.
    driftedNodes =
        MultiGauge.builder("fleetwave.fleet.nodes.drifted")
            .description(
                "Nodes that differ from their desired state, by cause: not-converged,"
                    + " changed-outside (changed by nothing Fleetwave asked for), agent-silent")
            .register(registry);
    rolloutNodes =
        MultiGauge.builder("fleetwave.rollout.nodes")
            .description("Nodes of an active rollout by state")
            .register(registry);
    rolloutWave =
        MultiGauge.builder("fleetwave.rollout.wave")
            .description("The wave an active rollout is in (0 before the canary)")
            .register(registry);
    rolloutPaused =
        MultiGauge.builder("fleetwave.rollout.paused")
            .description(
                "1 while a rollout is paused; by=system when a failure threshold paused it")
            .register(registry);
    rolloutOverdue =
        MultiGauge.builder("fleetwave.rollout.nodes.overdue")
            .description("In-flight nodes past the rollout's node timeout")
            .register(registry);
  }

  @Scheduled(
      every = "${fleetwave.metrics.refresh:15s}",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
  Uni<Void> refresh() {
    return Uni.combine()
        .all()
        .unis(
            queries.fleetHealth(config.silentAfter()),
            queries.activeRollouts(),
            drift.counts(config.silentAfter()))
        .with(
            (health, rollouts, drifted) -> {
              publish(health, rollouts);
              driftedNodes.register(
                  drifted.entrySet().stream()
                      .map(e -> MultiGauge.Row.of(Tags.of("cause", e.getKey()), e.getValue()))
                      .collect(java.util.stream.Collectors.toList()),
                  true);
              return (Void) null;
            })
        .ifNoItem()
        .after(config.refresh())
        .fail()
        .onFailure()
        .recoverWithItem(
            e -> {
              // A refresh the application's own stop cut (its pool closed under the query) is
              // not a failure to report: the gauges end with the application.
              if (!failing && !stopping) {
                // A timeout carries no message of its own: name the bound it ran past.
                String why =
                    e instanceof TimeoutException
                        ? "the queries did not answer within " + config.refresh()
                        : e.toString();
                LOG.warnf("fleet gauges keep their last values: %s", why);
              }
              failing = true;
              return null;
            });
  }

  void stopping(@Observes ShutdownEvent stop) {
    stopping = true;
  }

  private void publish(FleetHealth health, List<ActiveRollout> rollouts) {
    if (failing) {
      LOG.info("fleet gauges refreshed again");
      failing = false;
    }
    fleet.set(health);
    active.set(rollouts.size());
    List<MultiGauge.Row<?>> nodes = new ArrayList<>();
    List<MultiGauge.Row<?>> waves = new ArrayList<>();
    List<MultiGauge.Row<?>> paused = new ArrayList<>();
    List<MultiGauge.Row<?>> overdue = new ArrayList<>();
    for (ActiveRollout rollout : rollouts) {
      Tags tags = Tags.of("rollout", rollout.id().toString(), "name", rollout.name());
      Map<String, Long> byState =
          Map.of(
              "pending", rollout.pending(),
              "in-flight", rollout.inFlight(),
              "succeeded", rollout.succeeded(),
              "failed", rollout.failed());
      for (String state : RolloutProgressReader.NODE_STATES) {
        // The overview counts no skipped node (few, revoked ones): no gauge rather than a false 0.
        if (byState.containsKey(state)) {
          nodes.add(MultiGauge.Row.of(tags.and("state", state), byState.get(state)));
        }
      }
      waves.add(MultiGauge.Row.of(tags, rollout.currentWave()));
      paused.add(
          MultiGauge.Row.of(
              tags.and("by", rollout.pausedBy() == null ? "none" : rollout.pausedBy()),
              "paused".equals(rollout.state()) ? 1 : 0));
      overdue.add(MultiGauge.Row.of(tags, rollout.overdue()));
    }
    rolloutNodes.register(nodes, true);
    rolloutWave.register(waves, true);
    rolloutPaused.register(paused, true);
    rolloutOverdue.register(overdue, true);
  }
}
