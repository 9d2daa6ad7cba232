package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.core.rollout.decide.Effect;
import io.fleetwave.core.rollout.decide.EffectReport;
import io.fleetwave.core.rollout.decide.NodeRun;
import io.fleetwave.core.rollout.decide.RolloutRules;
import io.fleetwave.core.rollout.decide.RolloutRun;
import io.fleetwave.core.rollout.disruption.NodeOutage;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.RolloutEvent;
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
 * its one {@link Effect} ({@link Effect#of}), carried out by {@link NodeEffects}. What is owed
 * again (a takeover, a broker that was away) is read from the {@link EffectLedger}, which the
 * takeover rebuilds from the log. Effects never append: what they report is queued for the decider.
 */
final class RolloutEffects {
  private static final Logger LOG = Logger.getLogger(RolloutEffects.class);
  // How soon a spec that could not be sent (the broker or the database away) is sent again.
  private static final Duration SEND_AGAIN_AFTER = Duration.ofSeconds(2);

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

  /** Carries out the effects of events just appended and folded into {@code run}. */
  void dispatch(RolloutRun run, RolloutRules rules, List<Envelope<RolloutEvent>> appended) {
    List<String> started = new ArrayList<>();
    List<String> handOvers = new ArrayList<>();
    List<String> released = new ArrayList<>();
    boolean abandon = false;
    for (Envelope<RolloutEvent> envelope : appended) {
      switch (Effect.of(envelope.data())) {
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
        notSent -> ledger.handOverAt(run.id(), notSent, clock.instant().plus(SEND_AGAIN_AFTER)));
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
