package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.controlplane.rollout.drain.NodeOutage;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.DriverInstallRequested;
import io.fleetwave.events.rollout.NodeFailed;
import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeReturnedToService;
import io.fleetwave.events.rollout.NodeSkipped;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.NodeSucceeded;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.fleetwave.events.rollout.OsUpgradeRequested;
import io.fleetwave.events.rollout.RollbackStarted;
import io.fleetwave.events.rollout.RolloutAborted;
import io.fleetwave.events.rollout.RolloutCompleted;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutCreatedInChunks;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutFailed;
import io.fleetwave.events.rollout.RolloutPaused;
import io.fleetwave.events.rollout.RolloutPlanChunk;
import io.fleetwave.events.rollout.RolloutResumed;
import io.fleetwave.events.rollout.WaveCompleted;
import io.fleetwave.events.rollout.WavePromoted;
import io.fleetwave.events.rollout.WaveStarted;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jboss.logging.Logger;

/**
 * The one dispatcher from the log to the world: each appended (and folded) rollout event maps to
 * its one {@link Effect} ({@link #of}), carried out by {@link NodeEffects}. What is owed again (a
 * takeover, a broker that was away) is read from the {@link EffectLedger}, which the takeover
 * rebuilds from the log. Effects never append: what they report is queued for the decider.
 */
final class RolloutEffects {
  private static final Logger LOG = Logger.getLogger(RolloutEffects.class);
  // How soon a spec the broker did not take is offered to it again.
  private static final Duration BROKER_RETRY = Duration.ofSeconds(2);

  /** What one appended event makes happen outside the log. */
  sealed interface Effect {
    /** Nothing outside the log changes. */
    record None() implements Effect {}

    /** Watch the node's results and hand it over (after taking it out of service, with a drain). */
    record Start(String node) implements Effect {}

    /** The node is out of service: hand over its spec and its logged driver request. */
    record HandOver(String node) implements Effect {}

    /** The node finished: put it back in service, or keep it out after a failure (with a drain). */
    record Release(String node) implements Effect {}

    /** The rollout stopped with nodes in flight: their pauses are undone, they stay cordoned. */
    record Abandon() implements Effect {}
  }

  private static final Effect NONE = new Effect.None();

  private final NodeEffects effects;
  private final FleetObserver observer;
  private final Clock clock;
  private final Runnable wakeUp;
  private final EffectLedger ledger = new EffectLedger();
  // What effects reported, for the decider to record (effects never append).
  private final Queue<EffectReport> reports = new ConcurrentLinkedQueue<>();

  RolloutEffects(NodeEffects effects, FleetObserver observer, Clock clock, Runnable wakeUp) {
    this.effects = effects;
    this.observer = observer;
    this.clock = clock;
    this.wakeUp = wakeUp;
  }

  /** The one effect of an event; listed, not defaulted, so a new event type fails to compile. */
  static Effect of(RolloutEvent event) {
    return switch (event) {
      case NodeStarted started -> new Effect.Start(started.node());
      case NodeTakenOutOfService out -> new Effect.HandOver(out.node());
      case NodeSucceeded done -> new Effect.Release(done.node());
      case NodeFailed failed -> new Effect.Release(failed.node());
      case RolloutAborted _ -> new Effect.Abandon();
      // Handed to the executor with its node's spec, as logged (NodeRun#driverRequest): the spec
      // goes first, and with a drain only once the node is out of service.
      case DriverInstallRequested _, OsUpgradeRequested _ -> NONE;
      // The drain's own reports: what they announce has happened.
      case NodeReturnedToService _, NodeKeptOutOfService _ -> NONE;
      // Left out before it was started: nothing was sent, nothing is.
      case NodeSkipped _ -> NONE;
      // A log that cannot be folded says nothing to act on: its nodes stay as they are.
      case RolloutFailed _ -> NONE;
      case RolloutCreated _,
          RolloutCreatedInChunks _,
          RolloutPlanChunk _,
          WaveStarted _,
          WaveCompleted _,
          WavePromoted _,
          RolloutPaused _,
          RolloutResumed _,
          RollbackStarted _,
          RolloutCompleted _ ->
          NONE;
    };
  }

  /** Carries out the effects of events just appended and folded into {@code run}. */
  void dispatch(RolloutRun run, RolloutRules rules, List<Envelope<RolloutEvent>> appended) {
    List<String> started = new ArrayList<>();
    List<String> handOvers = new ArrayList<>();
    List<String> released = new ArrayList<>();
    boolean abandon = false;
    for (Envelope<RolloutEvent> envelope : appended) {
      switch (of(envelope.data())) {
        case Effect.Start start -> started.add(start.node());
        case Effect.HandOver handOver -> handOvers.add(handOver.node());
        case Effect.Release release -> released.add(release.node());
        case Effect.Abandon _ -> abandon = true;
        case Effect.None _ -> {}
      }
    }
    observer.watchStarted(started);
    handOver(run, rules, started);
    handOver(run, rules, handOvers);
    for (String node : released) {
      effects.release(run, rules, run.nodeRun(node), reports, wakeUp);
    }
    if (abandon) {
      abandonInFlight(run, rules);
    }
  }

  private void handOver(RolloutRun run, RolloutRules rules, List<String> nodes) {
    effects.carryOut(
        run,
        rules,
        nodes,
        reports,
        wakeUp,
        away -> ledger.handOverAt(run.id(), away, clock.instant().plus(BROKER_RETRY)));
  }

  /** A leader took over: what the log says is owed is owed again (every effect is idempotent). */
  void takenOver(RolloutRun run) {
    ledger.rebuild(run);
  }

  /** Before a takeover's rebuild: nothing is owed. */
  void clear() {
    ledger.clear();
  }

  /**
   * What the ledger holds due for this rollout: in-flight nodes handed over again (taken out of
   * service again where that is not in the log) and finished nodes put back (or kept out) again.
   */
  void carryOutDue(RolloutRun run, RolloutRules rules) {
    List<String> again = ledger.dueHandOvers(run, clock.instant());
    if (!again.isEmpty()) {
      LOG.infof(
          "rollout %s: sending %d in-flight node(s) their spec again", run.name(), again.size());
      handOver(run, rules, again);
    }
    for (NodeRun node : ledger.dueReleases(run)) {
      effects.release(run, rules, node, reports, wakeUp);
    }
  }

  /** This rollout's reports, taken off the queue (each is looked at by one round). */
  List<EffectReport> reportsOf(UUID rollout) {
    List<EffectReport> taken = new ArrayList<>();
    reports.removeIf(
        report -> {
          if (report.rollout().equals(rollout)) {
            taken.add(report);
            return true;
          }
          return false;
        });
    return taken;
  }

  /**
   * A node reported out of service after it had failed (its timeout): nobody follows that drain any
   * more, so its pauses are undone and it stays cordoned.
   */
  void abandonLateDrains(RolloutRun run, RolloutRules rules, List<EffectReport> reported) {
    for (EffectReport report : reported) {
      NodeRun node = run.nodeRun(report.node());
      if (report instanceof EffectReport.TakenOutOfService
          && node != null
          && node.generation() == report.generation()
          && !node.inFlight()) {
        effects.abandon(
            NodeEffects.outage(run, rules, node),
            "taken out of service after it had failed: " + node.reason());
      }
    }
  }

  /**
   * A rollout that stopped (aborted) with nodes in flight: those out of service get their pauses
   * undone now and stay cordoned; those still draining when their drain reports.
   */
  private void abandonInFlight(RolloutRun run, RolloutRules rules) {
    if (effects.drainBound().isZero()) {
      return;
    }
    String reason = "rollout " + run.name() + " is " + run.status().state().wireName();
    for (NodeRun node : run.inFlight()) {
      NodeOutage outage = NodeEffects.outage(run, rules, node);
      if (node.outOfService()) {
        effects.abandon(outage, reason);
      } else {
        ledger.abandonWhenDrained(outage, node.generation());
      }
    }
  }

  /** Reports for rollouts no longer run here: a finished drain of an abandoned node is undone. */
  void dropReportsOutside(Set<UUID> running) {
    reports.removeIf(
        report -> {
          if (running.contains(report.rollout())) {
            return false;
          }
          NodeOutage outage = ledger.abandoned(report);
          if (outage != null && report instanceof EffectReport.TakenOutOfService) {
            effects.abandon(outage, "taken out of service after its rollout stopped");
          }
          return true;
        });
  }

  /** How long taking a node out of service may take; zero when nodes are never taken out. */
  Duration drainBound() {
    return effects.drainBound();
  }

  NodeEffects nodeEffects() {
    return effects;
  }
}
