package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.controlplane.api.ProblemException;
import io.fleetwave.controlplane.driver.DriverArtifact;
import io.fleetwave.controlplane.driver.DriverArtifactResolver;
import io.fleetwave.controlplane.driver.DriverResolution;
import io.fleetwave.controlplane.driver.DriverVersion;
import io.fleetwave.controlplane.driver.NodeDriverFacts;
import io.fleetwave.controlplane.rollout.driver.DriverChangeExecutor;
import io.fleetwave.controlplane.rollout.driver.DriverChangeRequest;
import io.fleetwave.controlplane.rollout.plan.NodePlan;
import io.fleetwave.controlplane.spec.RolloutSpecRequest;
import io.fleetwave.controlplane.spec.SpecService;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.rollout.DriverInstallRequested;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.OsUpgradeRequested;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RestorePoint;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.spec.NodeSpec;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What starting a node means: the NodeStarted event with the generation and restore point (before
 * anything is sent), then the signed spec through {@link SpecService} and, for a driver change, the
 * request to the driver executor. Sends run concurrently, bounded per node.
 */
final class NodeEffects {
  private final SpecService specs;
  private final io.fleetwave.controlplane.rollout.drain.NodeDrain drain;
  private final DriverChangeExecutor drivers;
  private final DriverArtifactResolver resolver;
  private final Pool pool;
  private final Duration timeout;

  NodeEffects(
      SpecService specs,
      io.fleetwave.controlplane.rollout.drain.NodeDrain drain,
      DriverChangeExecutor drivers,
      DriverArtifactResolver resolver,
      Pool pool,
      Duration timeout) {
    this.specs = specs;
    this.drain = drain;
    this.drivers = drivers;
    this.resolver = resolver;
    this.pool = pool;
    this.timeout = timeout;
  }

  /** The events that start these nodes, and the nodes. */
  record Started(List<RolloutEvent> events, List<String> nodes) {}

  Started prepare(RolloutRun run, RolloutRules rules, List<Decision.Start> starts) {
    if (starts.isEmpty()) {
      return new Started(List.of(), List.of());
    }
    List<String> names = starts.stream().map(Decision.Start::node).toList();
    Map<String, NodeSpec> current = specs.currentSpecs(names).await().atMost(timeout);
    List<RolloutEvent> events = new ArrayList<>();
    for (Decision.Start start : starts) {
      NodePlan plan = rules.plan(start.node());
      NodeSpec desired = current.get(start.node());
      long generation = (desired == null ? 0 : desired.generation()) + 1;
      RestorePoint restore =
          start.phase() == Phase.FORWARD ? NodeChanges.restorePoint(plan, desired) : null;
      events.add(new NodeStarted(start.wave(), start.node(), start.phase(), generation, restore));
      String driver = driverTarget(run, plan, start.node(), start.phase(), restore);
      if (driver != null) {
        String id = requestId(run, start.node(), generation);
        if (osImage(plan)) {
          DriverArtifact.OsImage image = (DriverArtifact.OsImage) plan.driver().artifact();
          events.add(
              new OsUpgradeRequested(start.node(), id, driver, image.osId(), image.osVersion()));
        } else {
          DriverArtifact artifact = plan.driver().artifact();
          events.add(
              new DriverInstallRequested(
                  start.node(), id, driver, kind(artifact), artifact.describe()));
        }
      }
    }
    return new Started(events, names);
  }

  /** A node whose spec or driver request could not be handed over. */
  record Failure(UUID rollout, String node, long generation, String reason) {}

  /**
   * Sends these nodes their specs in one batch, then their driver requests, without waiting: the
   * engine goes on deciding meanwhile. Nodes that could not be handed over land in {@code failed}
   * (with the generation, so a later start of the same node is not failed by mistake) and the
   * engine is woken.
   */
  void carryOut(
      RolloutRun run,
      RolloutRules rules,
      List<String> nodes,
      java.util.Queue<Failure> failed,
      Runnable wakeUp) {
    if (nodes.isEmpty()) {
      return;
    }
    UUID rollout = run.id();
    List<RolloutSpecRequest> requests = new ArrayList<>();
    List<Uni<Void>> driverRequests = new ArrayList<>();
    Map<String, Long> generations = new java.util.HashMap<>();
    for (String name : nodes) {
      NodeRun node = run.nodeRun(name);
      NodePlan plan = rules.plan(name);
      long generation = node.generation();
      Phase phase = node.phase();
      generations.put(name, generation);
      requests.add(
          new RolloutSpecRequest(
              name,
              phase == Phase.FORWARD
                  ? NodeChanges.forward(plan)
                  : NodeChanges.back(plan, node.restore()),
              generation));
      String driver = driverTarget(run, plan, name, phase, node.restore());
      if (driver != null) {
        driverRequests.add(
            driverArtifact(plan, name, phase, driver)
                .chain(
                    artifact ->
                        drivers.request(
                            new DriverChangeRequest(
                                requestId(run, name, generation),
                                rollout,
                                name,
                                plan.hostKind(),
                                phase == Phase.FORWARD
                                    ? plan.driver().fromVersion()
                                    : plan.driver().toVersion(),
                                artifact)))
                .onFailure()
                .invoke(e -> failed.add(new Failure(rollout, name, generation, reason(e))))
                .onFailure()
                .recoverWithNull());
      }
    }
    drain
        .takeOutOfService(nodes)
        .ifNoItem()
        .after(timeout)
        .failWith(
            () ->
                new IllegalStateException(
                    "could not take the nodes out of service (" + drain.name() + ")"))
        .chain(() -> specs.putAllForRollout(requests))
        .ifNoItem()
        .after(timeout.multipliedBy(2))
        .failWith(() -> new IllegalStateException("no answer within " + timeout.multipliedBy(2)))
        .onItemOrFailure()
        .transformToUni(
            (refused, error) -> {
              if (error != null) {
                String reason = "the spec could not be published: " + reason(error);
                nodes.forEach(n -> failed.add(new Failure(rollout, n, generations.get(n), reason)));
                return Uni.createFrom().voidItem();
              }
              refused.forEach(
                  (node, why) ->
                      failed.add(new Failure(rollout, node, generations.get(node), why)));
              return driverRequests.isEmpty()
                  ? Uni.createFrom().voidItem()
                  : Uni.join().all(driverRequests).andCollectFailures().replaceWithVoid();
            })
        .subscribe()
        .with(done -> wakeUp.run(), error -> wakeUp.run());
  }

  /** Nodes that succeeded go back into service; a failure is only logged (they did succeed). */
  void backInService(List<String> nodes) {
    if (nodes.isEmpty()) {
      return;
    }
    drain
        .returnToService(nodes)
        .ifNoItem()
        .after(timeout)
        .fail()
        .subscribe()
        .with(
            done -> {},
            error ->
                org.jboss.logging.Logger.getLogger(NodeEffects.class)
                    .warnf(
                        "%d node(s) could not be returned to service by %s: %s",
                        nodes.size(), drain.name(), error.getMessage()));
  }

  /** Forward: the plan's artifact. Back: the old version, resolved for the node as it is now. */
  private Uni<DriverArtifact> driverArtifact(
      NodePlan plan, String node, Phase phase, String version) {
    if (phase == Phase.FORWARD) {
      return Uni.createFrom().item(plan.driver().artifact());
    }
    return pool.preparedQuery(
            "SELECT host_kind, os_id, os_version, kernel, driver_provider, driver_version FROM"
                + " nodes WHERE name = $1")
        .execute(Tuple.of(node))
        .map(
            rows -> {
              Row row = rows.iterator().next();
              NodeDriverFacts facts =
                  new NodeDriverFacts(
                      HostKind.fromWireName(row.getString("host_kind")),
                      row.getString("os_id"),
                      row.getString("os_version"),
                      row.getString("kernel"),
                      DriverProvider.fromWireName(row.getString("driver_provider")),
                      row.getString("driver_version"));
              return switch (resolver.resolve(facts, List.of(), DriverVersion.parse(version))) {
                case DriverResolution.Resolved resolved -> resolved.artifact();
                case DriverResolution.Unservable unservable ->
                    throw new IllegalStateException(
                        "cannot roll the driver back to " + version + ": " + unservable.reason());
              };
            });
  }

  /** The driver version this phase moves the node to, or null when the driver does not change. */
  private static String driverTarget(
      RolloutRun run, NodePlan plan, String node, Phase phase, RestorePoint restore) {
    if (plan.driver() == null) {
      return null;
    }
    if (phase == Phase.FORWARD) {
      return plan.driver().toVersion();
    }
    RestorePoint point = restore != null ? restore : run.nodeRun(node).restore();
    return point.driverVersion();
  }

  private static boolean osImage(NodePlan plan) {
    return plan.driver().artifact() instanceof DriverArtifact.OsImage;
  }

  private static String kind(DriverArtifact artifact) {
    return switch (artifact) {
      case DriverArtifact.ContainerImage image -> "container-image";
      case DriverArtifact.HostPackage pkg -> "host-package";
      case DriverArtifact.OsImage image -> "os-image";
    };
  }

  private static String requestId(RolloutRun run, String node, long generation) {
    return run.id() + ":" + node + ":" + generation;
  }

  private static String reason(Throwable e) {
    if (e instanceof ProblemException problem) {
      return problem.getMessage();
    }
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }
}
