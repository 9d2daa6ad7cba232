package io.fleetwave.core.rollout.decide;

import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.core.rollout.plan.FailureAction;
import io.fleetwave.core.rollout.plan.GpuBudget;
import io.fleetwave.core.rollout.plan.NodePlan;
import io.fleetwave.events.Topics;
import io.fleetwave.events.rollout.DriverInstallRequested;
import io.fleetwave.events.rollout.FailureCause;
import io.fleetwave.events.rollout.NodeFailed;
import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeSkipped;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.NodeSucceeded;
import io.fleetwave.events.rollout.OsUpgradeRequested;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RestorePoint;
import io.fleetwave.events.rollout.RollbackStarted;
import io.fleetwave.events.rollout.RolloutAborted;
import io.fleetwave.events.rollout.RolloutCompleted;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutFailed;
import io.fleetwave.events.rollout.RolloutPaused;
import io.fleetwave.events.rollout.RolloutResumed;
import io.fleetwave.events.rollout.WaveCompleted;
import io.fleetwave.events.rollout.WavePromoted;
import io.fleetwave.events.rollout.WaveStarted;
import io.fleetwave.events.spec.NodeSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * Decides a rollout's next step from its folded events and what it is given ({@link DeciderInput}:
 * the clock, operator requests, what the fleet shows, the desired specs of the nodes it may start,
 * what effects reported, the revoked nodes). Pure, and the only place a rollout decision is made,
 * every rollout event included (its verdicts too: {@link #cannotFold}, {@link #cannotLog}, {@link
 * #refusedByTheLog}): it returns the events themselves, and the engine appends them (acknowledged),
 * folds them, carries out their effects, and asks again until nothing is left to decide, so every
 * decision is made on state that is already in the log.
 *
 * <p>One call returns one kind of step, in this order: operator requests; what effects reported (a
 * node out of service or back, a hand-over or a drain that failed); nodes in flight that finished,
 * failed, timed out or were revoked; the failure thresholds; the wave's end, soak, health gate and
 * promotion; the next nodes to start, each {@code NodeStarted} with the generation after its
 * desired spec's and its restore point, followed by its driver request if its driver changes (a
 * node revoked since the plan, or before its rollback, is skipped instead, {@code NodeSkipped}).
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

  /**
   * The verdict on a rollout whose own log holds a record that cannot be folded (it does not
   * decode, contradicts the rollout, or is too large): it stops for good, naming the record.
   */
  public static RolloutFailed cannotFold(String topic, int partition, long offset, String why) {
    return new RolloutFailed(topic, partition, offset, why);
  }

  /**
   * The verdict on a rollout the API stored that cannot be logged as created (its request does not
   * read, or its plan has no wave): it fails alone, the others go on.
   */
  public static RolloutFailed cannotLog(String name, String why) {
    return new RolloutFailed(
        Topics.ROLLOUT_EVENTS,
        RolloutFailed.NOT_LOGGED,
        RolloutFailed.NOT_LOGGED,
        "rollout " + name + " as stored cannot be logged: " + why);
  }

  /**
   * The verdict on a rollout one of whose decided events Kafka refused for good (too large): sent
   * again it would be refused forever.
   */
  public static RolloutFailed refusedByTheLog(String why) {
    return new RolloutFailed(
        Topics.ROLLOUT_EVENTS, RolloutFailed.NOT_LOGGED, RolloutFailed.NOT_LOGGED, why);
  }

  /** The answer to requests on a rollout that is no longer active. */
  public static OperatorOutcome noLongerActive(OperatorRequest request) {
    return new OperatorOutcome.Refused(request.id(), "the rollout is no longer active");
  }

  private boolean draining() {
    return !drainBound.isZero();
  }

  public Decision decide(RolloutRun run, DeciderInput input) {
    if (!input.requests().isEmpty()) {
      return handle(run, input.requests().getFirst());
    }
    if (!run.status().active()) {
      return Decision.NONE;
    }
    List<RolloutEvent> reported = reported(run, input);
    if (!reported.isEmpty()) {
      return Decision.of(reported);
    }
    List<RolloutEvent> finished = finishedNodes(run, input);
    if (!finished.isEmpty()) {
      return Decision.of(finished);
    }
    return switch (run.status()) {
      case RUNNING -> running(run, input);
      case ROLLING_BACK -> Decision.of(rollingBack(run, input));
      default -> Decision.NONE;
    };
  }

  /**
   * The nodes the next step would start if it comes to starting nodes, in plan order: the engine
   * reads their desired specs before it asks (see {@link DeciderInput#desired}).
   */
  public List<String> startCandidates(RolloutRun run) {
    Collection<NodeRun> candidates =
        switch (run.status()) {
          case RUNNING -> {
            int wave = run.currentWave();
            yield wave == 0 || run.waveCompleted(wave) ? List.of() : run.pending(wave);
          }
          case ROLLING_BACK -> rollbackWaiting(run);
          default -> List.of();
        };
    return pick(run, candidates).stream().map(NodeRun::node).toList();
  }

  private Decision handle(RolloutRun run, OperatorRequest request) {
    RunStatus status = run.status();
    String reason = request.reason() == null ? "operator request" : request.reason();
    String actor = request.actor();
    RolloutEvent event =
        switch (request.action()) {
          case PAUSE ->
              status == RunStatus.RUNNING ? new RolloutPaused("paused: " + reason, actor) : null;
          case RESUME ->
              status == RunStatus.PAUSED ? new RolloutResumed(request.reason(), actor) : null;
          case ABORT -> status.active() ? new RolloutAborted(reason, actor) : null;
          case ROLLBACK ->
              status == RunStatus.RUNNING || status == RunStatus.PAUSED
                  ? new RollbackStarted("rollback requested: " + reason, actor)
                  : null;
          case PROMOTE ->
              awaitingPromotion(run) ? new WavePromoted(run.currentWave(), actor) : null;
        };
    if (event == null) {
      return new Decision(
          List.of(),
          List.of(
              new OperatorOutcome.Refused(
                  request.id(),
                  "cannot "
                      + request.action().wireName()
                      + " a rollout that is "
                      + describe(run))));
    }
    return new Decision(List.of(event), List.of(new OperatorOutcome.Done(request.id())));
  }

  private static String describe(RolloutRun run) {
    return run.status().state().wireName()
        + (run.status() == RunStatus.RUNNING ? " (and not waiting for a promotion)" : "");
  }

  /**
   * What effects reported, where it still applies to the node's current start: out of service (in
   * flight, not yet out), back or kept out (finished, not yet back), hand-over or drain failed (in
   * flight). A node is named once per step.
   */
  private static List<RolloutEvent> reported(RolloutRun run, DeciderInput input) {
    List<RolloutEvent> out = new ArrayList<>();
    Set<String> named = new HashSet<>();
    for (EffectReport report : input.reports()) {
      NodeRun node = report.rollout().equals(run.id()) ? run.nodeRun(report.node()) : null;
      if (node == null || node.generation() != report.generation() || named.contains(node.node())) {
        continue;
      }
      RolloutEvent event =
          switch (report) {
            case EffectReport.TakenOutOfService taken ->
                node.inFlight() && !node.outOfService() ? taken.report() : null;
            case EffectReport.ReturnedToService back ->
                node.releasePending() ? back.report() : null;
            case EffectReport.KeptOutOfService kept -> node.releasePending() ? kept.report() : null;
            case EffectReport.ReleaseFailed failed ->
                node.releasePending()
                    ? new NodeKeptOutOfService(
                        node.node(), node.phase(), List.of(), failed.reason())
                    : null;
            case EffectReport.HandOverFailed failed ->
                node.inFlight()
                    ? failed(node, new FailureCause.HandOverFailed(failed.reason()), input.now())
                    : null;
            case EffectReport.NotTakenOutOfService failed ->
                node.inFlight()
                    ? failed(
                        node, new FailureCause.NotTakenOutOfService(failed.reason()), input.now())
                    : null;
          };
      if (event != null) {
        named.add(node.node());
        out.add(event);
      }
    }
    return out;
  }

  /**
   * In-flight nodes (either phase) whose result is in: applied and healthy, refused, timed out; or
   * revoked, whose results are no longer trusted, so they fail whatever they report.
   */
  private List<RolloutEvent> finishedNodes(RolloutRun run, DeciderInput input) {
    Instant now = input.now();
    List<RolloutEvent> out = new ArrayList<>();
    for (NodeRun node : run.inFlight()) {
      if (input.revoked().contains(node.node())) {
        out.add(failed(node, new FailureCause.Revoked(), now));
        continue;
      }
      Observation seen = input.fleet().apply(node.node());
      boolean drained = !draining() || node.outOfService();
      String unmet = drained ? unmet(node, seen) : "not out of service yet (draining)";
      Duration limit = drained ? rules.nodeTimeout() : rules.nodeTimeout().plus(drainBound);
      Instant since = node.outOfService() ? node.outOfServiceAt() : node.startedAt();
      if (drained && seen.failedGeneration() == node.generation()) {
        FailureCause cause =
            seen.failure() != null
                ? seen.failure()
                : new FailureCause.Unclassified("the agent reported a failure");
        out.add(failed(node, cause, now));
      } else if (unmet == null) {
        out.add(new NodeSucceeded(node.wave(), node.node(), node.phase(), elapsed(node, now)));
      } else if (!now.isBefore(since.plus(limit))) {
        out.add(failed(node, new FailureCause.TimedOut(limit.toSeconds(), unmet), now));
      }
    }
    return out;
  }

  private static long elapsed(NodeRun node, Instant now) {
    return Math.max(0, Duration.between(node.startedAt(), now).toMillis());
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

  private static NodeFailed failed(NodeRun node, FailureCause cause, Instant now) {
    return new NodeFailed(node.wave(), node.node(), node.phase(), cause, elapsed(node, now));
  }

  private Decision running(RolloutRun run, DeciderInput input) {
    Instant now = input.now();
    String crossed = thresholdCrossed(run);
    if (crossed != null) {
      RolloutEvent stop =
          rules.action() == FailureAction.ROLLBACK
              ? new RollbackStarted(crossed, RolloutEvent.SYSTEM)
              : new RolloutPaused(crossed, RolloutEvent.SYSTEM);
      return Decision.of(stop);
    }
    int wave = run.currentWave();
    if (wave == 0) {
      return rules.windowOpen(now) ? Decision.of(new WaveStarted(1)) : Decision.NONE;
    }
    if (!run.waveCompleted(wave)) {
      if (run.waveSettled(wave)) {
        List<NodeRun> nodes = nodesOf(run, wave);
        int failed = (int) nodes.stream().filter(n -> n.state() == NodeState.FAILED).count();
        int skipped = (int) nodes.stream().filter(n -> n.state() == NodeState.SKIPPED).count();
        return Decision.of(new WaveCompleted(wave, nodes.size() - failed - skipped, failed));
      }
      return rules.windowOpen(now)
          ? Decision.of(starts(run, run.pending(wave), input))
          : Decision.NONE;
    }
    if (now.isBefore(run.waveCompletedAt(wave).plus(rules.soak()))) {
      return Decision.NONE;
    }
    List<RolloutEvent> sick = healthGate(run, wave, input.fleet());
    if (!sick.isEmpty()) {
      return Decision.of(sick);
    }
    if (wave == run.waveCount()) {
      int failed = run.failed(Phase.FORWARD, 0);
      int skipped = (int) run.nodes().stream().filter(n -> n.state() == NodeState.SKIPPED).count();
      return Decision.of(
          new RolloutCompleted(false, run.plannedNodes() - failed - skipped, failed));
    }
    if (rules.manualPromotion() && !run.promoted(wave)) {
      return Decision.NONE;
    }
    return rules.windowOpen(now) ? Decision.of(new WaveStarted(wave + 1)) : Decision.NONE;
  }

  /** After the soak: nodes of the wave that succeeded but are no longer healthy now fail. */
  private List<RolloutEvent> healthGate(
      RolloutRun run, int wave, Function<String, Observation> fleet) {
    List<RolloutEvent> out = new ArrayList<>();
    for (NodeRun node : nodesOf(run, wave)) {
      if (node.phase() == Phase.FORWARD && node.state() == NodeState.SUCCEEDED) {
        Observation seen = fleet.apply(node.node());
        if (seen.unhealthy() != null) {
          long elapsed = Duration.between(node.startedAt(), node.finishedAt()).toMillis();
          out.add(
              new NodeFailed(
                  node.wave(),
                  node.node(),
                  node.phase(),
                  new FailureCause.UnhealthyAfterSoak(rules.soak().toSeconds(), seen.unhealthy()),
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

  /**
   * Pending nodes, in plan order, into the free slots, within the zone limit and the GPU budget (a
   * node that does not fit waits; a smaller one behind it may start).
   */
  private List<NodeRun> pick(RolloutRun run, Collection<NodeRun> candidates) {
    List<NodeRun> inFlight = new ArrayList<>(run.inFlight());
    inFlight.addAll(run.releasePending());
    int free = rules.maxUnavailable() - inFlight.size();
    if (free <= 0) {
      return List.of();
    }
    Set<String> zones = new HashSet<>();
    inFlight.forEach(n -> zones.add(rules.zone(n.node())));
    GpuBudget.Offline offline = rules.budget().offline();
    inFlight.forEach(n -> offlineToo(offline, n));
    List<NodeRun> out = new ArrayList<>();
    for (NodeRun node : candidates) {
      if (out.size() == free) {
        break;
      }
      String zone = rules.zone(node.node());
      Integer maxZones = rules.maxZonesInFlight();
      if (maxZones != null && !zones.contains(zone) && zones.size() >= maxZones) {
        continue;
      }
      NodePlan plan = rules.plan(node.node());
      if (plan != null && !offline.admits(plan)) {
        continue;
      }
      zones.add(zone);
      offlineToo(offline, node);
      out.add(node);
    }
    return out;
  }

  /**
   * Counts {@code node}'s GPUs offline (a node of a v1 plan, without its plan here, counts none).
   */
  private void offlineToo(GpuBudget.Offline offline, NodeRun node) {
    NodePlan plan = rules.plan(node.node());
    if (plan != null) {
      offline.add(plan);
    }
  }

  /**
   * Starts the picked nodes: the generation after the node's desired spec (what it must reach),
   * forward the restore point (what it had), and the driver request when its driver changes.
   */
  private List<RolloutEvent> starts(
      RolloutRun run, Collection<NodeRun> candidates, DeciderInput input) {
    Phase phase = run.status() == RunStatus.ROLLING_BACK ? Phase.ROLLBACK : Phase.FORWARD;
    List<RolloutEvent> out = new ArrayList<>();
    if (!input.revoked().isEmpty()) {
      // Revoked since the plan was made (or, rolling back, since its forward change): never sent
      // this phase's spec, and no slot taken. Its results are no longer trusted either way.
      List<NodeRun> trusted = new ArrayList<>();
      for (NodeRun node : candidates) {
        if (input.revoked().contains(node.node())) {
          out.add(new NodeSkipped(node.wave(), node.node(), NodeSkipped.REVOKED));
        } else {
          trusted.add(node);
        }
      }
      candidates = trusted;
    }
    for (NodeRun node : pick(run, candidates)) {
      NodePlan plan = rules.plan(node.node());
      NodeSpec desired = input.desired().get(node.node());
      long generation = (desired == null ? 0 : desired.generation()) + 1;
      RestorePoint restore = phase == Phase.FORWARD ? RestorePoints.of(plan, desired) : null;
      out.add(new NodeStarted(node.wave(), node.node(), phase, generation, restore));
      RolloutEvent driver = driverRequest(run.id(), plan, phase, generation, restore, node);
      if (driver != null) {
        out.add(driver);
      }
    }
    return out;
  }

  /** The request for a node's driver change, or null when its driver does not change. */
  private static RolloutEvent driverRequest(
      UUID rollout,
      NodePlan plan,
      Phase phase,
      long generation,
      RestorePoint restore,
      NodeRun node) {
    String version = driverTarget(plan, phase, restore != null ? restore : node.restore());
    if (version == null) {
      return null;
    }
    String id = requestId(rollout, node.node(), generation);
    DriverArtifact artifact = plan.driver().artifact();
    if (artifact instanceof DriverArtifact.OsImage image) {
      return new OsUpgradeRequested(node.node(), id, version, image.osId(), image.osVersion());
    }
    return new DriverInstallRequested(
        node.node(), id, version, kind(artifact), artifact.describe());
  }

  /** The driver version this phase moves the node to, or null when the driver does not change. */
  private static String driverTarget(NodePlan plan, Phase phase, RestorePoint restore) {
    if (plan.driver() == null) {
      return null;
    }
    return phase == Phase.FORWARD ? plan.driver().toVersion() : restore.driverVersion();
  }

  /** The id a node's driver request goes by, the same on every (re)send of one start. */
  private static String requestId(UUID rollout, String node, long generation) {
    return rollout + ":" + node + ":" + generation;
  }

  private static String kind(DriverArtifact artifact) {
    return switch (artifact) {
      case DriverArtifact.ContainerImage image -> "container-image";
      case DriverArtifact.HostPackage pkg -> "host-package";
      case DriverArtifact.OsImage image -> "os-image";
    };
  }

  /** Touched forward nodes not yet rolled back, newest wave first. */
  private static List<NodeRun> rollbackWaiting(RolloutRun run) {
    return run.nodes().stream()
        .filter(
            n ->
                n.touched()
                    && n.phase() == Phase.FORWARD
                    && n.state().finished()
                    && !n.releasePending())
        .sorted(Comparator.comparingInt(NodeRun::wave).reversed().thenComparingInt(NodeRun::order))
        .toList();
  }

  private List<RolloutEvent> rollingBack(RolloutRun run, DeciderInput input) {
    List<NodeRun> waiting = rollbackWaiting(run);
    boolean forwardInFlight = run.inFlight().stream().anyMatch(n -> n.phase() == Phase.FORWARD);
    if (waiting.isEmpty()
        && !forwardInFlight
        && run.inFlight().isEmpty()
        && run.releasePending().isEmpty()) {
      int failed = run.failed(Phase.ROLLBACK, 0);
      int rolledBack =
          (int)
              run.nodes().stream()
                  .filter(n -> n.phase() == Phase.ROLLBACK && n.state() != NodeState.SKIPPED)
                  .count();
      return List.of(new RolloutCompleted(true, rolledBack - failed, failed));
    }
    return starts(run, waiting, input);
  }

  private static List<NodeRun> nodesOf(RolloutRun run, int wave) {
    return run.wave(wave).stream().map(run::nodeRun).toList();
  }
}
