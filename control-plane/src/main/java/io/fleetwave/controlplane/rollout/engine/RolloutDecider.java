package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.controlplane.rollout.plan.FailureAction;
import io.fleetwave.events.rollout.NodeFailed;
import io.fleetwave.events.rollout.NodeSucceeded;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RollbackStarted;
import io.fleetwave.events.rollout.RolloutAborted;
import io.fleetwave.events.rollout.RolloutCompleted;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutPaused;
import io.fleetwave.events.rollout.RolloutResumed;
import io.fleetwave.events.rollout.WaveCompleted;
import io.fleetwave.events.rollout.WavePromoted;
import io.fleetwave.events.rollout.WaveStarted;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Decides a rollout's next step from its folded events, what the fleet shows and the clock. Pure:
 * the engine appends what it returns, folds it, and asks again until nothing is left to decide, so
 * every decision is made on state that is already in the log.
 *
 * <p>One call returns one kind of step, in this order: operator requests; nodes in flight that
 * finished, failed or timed out; the failure thresholds; the wave's end, soak, health gate and
 * promotion; the next nodes to start.
 *
 * <p>With a drain (a non-zero {@code drainBound}) a started node first has to be taken out of
 * service (NodeTakenOutOfService) before it can succeed; its node timeout counts from then, and
 * while it drains the drain's own bound applies on top. A finished node stays unavailable until it
 * is back in service (or kept out after a failure): it holds its maxUnavailable slot, and its wave
 * is not complete before.
 */
public final class RolloutDecider {
  private final RolloutRules rules;
  private final Duration drainBound;

  public RolloutDecider(RolloutRules rules) {
    this(rules, Duration.ZERO);
  }

  /**
   * @param drainBound how long taking a node out of service may take; zero when nodes are not taken
   *     out of service at all
   */
  public RolloutDecider(RolloutRules rules, Duration drainBound) {
    this.rules = rules;
    this.drainBound = drainBound;
  }

  private boolean draining() {
    return !drainBound.isZero();
  }

  public List<Decision> decide(
      RolloutRun run,
      List<OperatorRequest> requests,
      Function<String, Observation> fleet,
      Instant now) {
    if (!requests.isEmpty()) {
      return handle(run, requests.getFirst());
    }
    if (!run.status().active()) {
      return List.of();
    }
    List<Decision> finished = finishedNodes(run, fleet, now);
    if (!finished.isEmpty()) {
      return finished;
    }
    return switch (run.status()) {
      case RUNNING -> running(run, fleet, now);
      case ROLLING_BACK -> rollingBack(run);
      default -> List.of();
    };
  }

  private List<Decision> handle(RolloutRun run, OperatorRequest request) {
    RunStatus status = run.status();
    String reason = request.reason() == null ? "operator request" : request.reason();
    RolloutEvent event =
        switch (request.action()) {
          case PAUSE -> status == RunStatus.RUNNING ? new RolloutPaused("paused: " + reason) : null;
          case RESUME -> status == RunStatus.PAUSED ? new RolloutResumed(request.reason()) : null;
          case ABORT -> status.active() ? new RolloutAborted(reason) : null;
          case ROLLBACK ->
              status == RunStatus.RUNNING || status == RunStatus.PAUSED
                  ? new RollbackStarted("rollback requested: " + reason)
                  : null;
          case PROMOTE -> awaitingPromotion(run) ? new WavePromoted(run.currentWave()) : null;
        };
    if (event == null) {
      return List.of(
          new Decision.Refuse(
              request.id(),
              "cannot " + request.action().wireName() + " a rollout that is " + describe(run)));
    }
    return List.of(new Decision.Append(event), new Decision.Handled(request.id()));
  }

  private static String describe(RolloutRun run) {
    return run.status().state().wireName()
        + (run.status() == RunStatus.RUNNING ? " (and not waiting for a promotion)" : "");
  }

  /** In-flight nodes (either phase) whose result is in: applied and healthy, refused, timed out. */
  private List<Decision> finishedNodes(
      RolloutRun run, Function<String, Observation> fleet, Instant now) {
    List<Decision> out = new ArrayList<>();
    for (NodeRun node : run.inFlight()) {
      Observation seen = fleet.apply(node.node());
      long elapsed = Math.max(0, Duration.between(node.startedAt(), now).toMillis());
      boolean drained = !draining() || node.outOfService();
      String unmet = drained ? unmet(node, seen) : "not out of service yet (draining)";
      Duration limit = drained ? rules.nodeTimeout() : rules.nodeTimeout().plus(drainBound);
      Instant since = node.outOfService() ? node.outOfServiceAt() : node.startedAt();
      if (drained && seen.failedGeneration() == node.generation()) {
        out.add(failed(node, seen.failure(), elapsed));
      } else if (unmet == null) {
        out.add(
            new Decision.Append(
                new NodeSucceeded(node.wave(), node.node(), node.phase(), elapsed)));
      } else if (!now.isBefore(since.plus(limit))) {
        out.add(failed(node, "no result within " + limit.toSeconds() + " s: " + unmet, elapsed));
      }
    }
    return out;
  }

  /** What the node still lacks to count as done, or null when it is done and healthy. */
  private String unmet(NodeRun node, Observation seen) {
    if (seen.appliedGeneration() < node.generation()) {
      return "spec generation "
          + node.generation()
          + " not applied (applied: "
          + seen.appliedGeneration()
          + ")";
    }
    String driver = wantedDriver(node);
    if (driver != null && !driver.equals(seen.driverVersion())) {
      return "driver " + seen.driverVersion() + " is running, not " + driver;
    }
    if (seen.unhealthy() != null) {
      return "unhealthy: " + seen.unhealthy();
    }
    return null;
  }

  /** The driver the node must report: the target forward, the restore point's when rolling back. */
  private String wantedDriver(NodeRun node) {
    if (rules.plan(node.node()).driver() == null) {
      return null;
    }
    return node.phase() == Phase.ROLLBACK
        ? node.restore().driverVersion()
        : rules.plan(node.node()).driver().toVersion();
  }

  private static Decision failed(NodeRun node, String reason, long elapsed) {
    return new Decision.Append(
        new NodeFailed(
            node.wave(),
            node.node(),
            node.phase(),
            reason == null || reason.isBlank() ? "the agent reported a failure" : reason,
            elapsed));
  }

  private List<Decision> running(RolloutRun run, Function<String, Observation> fleet, Instant now) {
    String crossed = thresholdCrossed(run);
    if (crossed != null) {
      RolloutEvent stop =
          rules.action() == FailureAction.ROLLBACK
              ? new RollbackStarted(crossed)
              : new RolloutPaused(crossed);
      return List.of(new Decision.Append(stop));
    }
    int wave = run.currentWave();
    if (wave == 0) {
      return rules.windowOpen(now) ? List.of(append(new WaveStarted(1))) : List.of();
    }
    if (!run.waveCompleted(wave)) {
      List<NodeRun> nodes = nodesOf(run, wave);
      if (nodes.stream().allMatch(n -> n.state().finished() && !n.releasePending())) {
        int failed = (int) nodes.stream().filter(n -> n.state() == NodeState.FAILED).count();
        return List.of(append(new WaveCompleted(wave, nodes.size() - failed, failed)));
      }
      List<NodeRun> pending = nodes.stream().filter(n -> n.state() == NodeState.PENDING).toList();
      return rules.windowOpen(now) ? starts(run, pending) : List.of();
    }
    if (now.isBefore(run.waveCompletedAt(wave).plus(rules.soak()))) {
      return List.of();
    }
    List<Decision> sick = healthGate(run, wave, fleet);
    if (!sick.isEmpty()) {
      return sick;
    }
    if (wave == run.waveCount()) {
      int failed = run.failed(Phase.FORWARD, 0);
      return List.of(append(new RolloutCompleted(false, run.plannedNodes() - failed, failed)));
    }
    if (rules.manualPromotion() && !run.promoted(wave)) {
      return List.of();
    }
    return rules.windowOpen(now) ? List.of(append(new WaveStarted(wave + 1))) : List.of();
  }

  /** After the soak: nodes of the wave that succeeded but are no longer healthy now fail. */
  private List<Decision> healthGate(RolloutRun run, int wave, Function<String, Observation> fleet) {
    List<Decision> out = new ArrayList<>();
    for (NodeRun node : nodesOf(run, wave)) {
      if (node.phase() == Phase.FORWARD && node.state() == NodeState.SUCCEEDED) {
        Observation seen = fleet.apply(node.node());
        if (seen.unhealthy() != null) {
          long elapsed = Duration.between(node.startedAt(), node.finishedAt()).toMillis();
          out.add(
              failed(
                  node,
                  "unhealthy after the "
                      + rules.soak().toSeconds()
                      + " s soak: "
                      + seen.unhealthy(),
                  elapsed));
        }
      }
    }
    return out;
  }

  /** Whether the rollout waits for an operator to promote its current wave. */
  public boolean awaitingPromotion(RolloutRun run) {
    int wave = run.currentWave();
    return run.status() == RunStatus.RUNNING
        && rules.manualPromotion()
        && wave > 0
        && wave < run.waveCount()
        && run.waveCompleted(wave)
        && !run.promoted(wave);
  }

  private String thresholdCrossed(RolloutRun run) {
    int wave = run.currentWave();
    if (wave > 0) {
      int size = run.wave(wave).size();
      int failed = run.failed(Phase.FORWARD, wave);
      int allowed = rules.perWave().resolve(size);
      if (failed - run.acceptedFailures(wave) > allowed) {
        return "wave "
            + wave
            + ": "
            + failed
            + " of "
            + size
            + " nodes failed (per-wave threshold "
            + rules.perWave()
            + " allows "
            + allowed
            + "): "
            + failures(run, wave);
      }
    }
    int failed = run.failed(Phase.FORWARD, 0);
    int allowed = rules.total().resolve(run.plannedNodes());
    if (failed - run.acceptedFailures(0) > allowed) {
      return failed
          + " of "
          + run.plannedNodes()
          + " nodes failed (total threshold "
          + rules.total()
          + " allows "
          + allowed
          + "): "
          + failures(run, 0);
    }
    return null;
  }

  private static String failures(RolloutRun run, int wave) {
    List<String> named = new ArrayList<>();
    for (NodeRun node : run.nodes()) {
      if (node.phase() == Phase.FORWARD
          && node.state() == NodeState.FAILED
          && (wave == 0 || node.wave() == wave)) {
        if (named.size() == 5) {
          named.add("...");
          break;
        }
        named.add(node.node() + " (" + node.reason() + ")");
      }
    }
    return String.join("; ", named);
  }

  /** Pending nodes, in plan order, into the free slots, within the zone limit. */
  private List<Decision> starts(RolloutRun run, List<NodeRun> candidates) {
    List<NodeRun> inFlight = new ArrayList<>(run.inFlight());
    inFlight.addAll(run.releasePending());
    int free = rules.maxUnavailable() - inFlight.size();
    if (free <= 0) {
      return List.of();
    }
    Set<String> zones = new HashSet<>();
    inFlight.forEach(n -> zones.add(rules.zone(n.node())));
    Phase phase = run.status() == RunStatus.ROLLING_BACK ? Phase.ROLLBACK : Phase.FORWARD;
    List<Decision> out = new ArrayList<>();
    for (NodeRun node : candidates) {
      if (out.size() == free) {
        break;
      }
      String zone = rules.zone(node.node());
      Integer maxZones = rules.maxZonesInFlight();
      if (maxZones != null && !zones.contains(zone) && zones.size() >= maxZones) {
        continue;
      }
      zones.add(zone);
      out.add(new Decision.Start(node.node(), node.wave(), phase));
    }
    return out;
  }

  private List<Decision> rollingBack(RolloutRun run) {
    List<NodeRun> waiting =
        run.nodes().stream()
            .filter(
                n ->
                    n.touched()
                        && n.phase() == Phase.FORWARD
                        && n.state().finished()
                        && !n.releasePending())
            .sorted(
                Comparator.comparingInt(NodeRun::wave).reversed().thenComparingInt(NodeRun::order))
            .toList();
    boolean forwardInFlight =
        run.nodes().stream().anyMatch(n -> n.phase() == Phase.FORWARD && n.inFlight());
    if (waiting.isEmpty()
        && !forwardInFlight
        && run.inFlight().isEmpty()
        && run.releasePending().isEmpty()) {
      int failed = run.failed(Phase.ROLLBACK, 0);
      int rolledBack = (int) run.nodes().stream().filter(n -> n.phase() == Phase.ROLLBACK).count();
      return List.of(append(new RolloutCompleted(true, rolledBack - failed, failed)));
    }
    return starts(run, waiting);
  }

  private static List<NodeRun> nodesOf(RolloutRun run, int wave) {
    return run.wave(wave).stream().map(run::nodeRun).toList();
  }

  private static Decision append(RolloutEvent event) {
    return new Decision.Append(event);
  }
}
