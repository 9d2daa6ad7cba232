package io.fleetwave.controlplane.rollout.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.rollout.drain.NodeOutage;
import io.fleetwave.controlplane.rollout.plan.NodePlan;
import io.fleetwave.controlplane.rollout.plan.RolloutPlan;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.NodeFailed;
import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeReturnedToService;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Runs every active rollout. One leader at a time (a PostgreSQL advisory lock); on taking over it
 * folds every rollout from fleet.rollout-events, so what it decides next depends on the log alone:
 * a node with a NodeStarted is never started again (its spec is re-sent idempotently), a pending
 * node is never skipped.
 *
 * <p>Each round: the operator requests, then the decider step by step; every step's events are
 * appended to Kafka and acknowledged before they are folded, before the specs they announce are
 * sent, and before the projection shows them. The loop wakes on a node's result from the head of
 * fleet.node-events, on its tick, or when a request arrives.
 *
 * <p>With an active drain a started node is first taken out of service; the engine appends what the
 * drain reports (NodeTakenOutOfService) and only then sends the spec. A node that finished while
 * out of service is put back (or kept out after a failure) and the outcome appended too. A leader
 * that takes over drains, returns or keeps out again whatever has no outcome in the log (every
 * drain call is idempotent).
 */
public final class RolloutEngine implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(RolloutEngine.class);
  private static final int MAX_STEPS_PER_ROUND = 64;

  private final RolloutLog log;
  private final RolloutProgressStore store;
  private final FleetObserver observer;
  private final EngineLeadership leadership;
  private final NodeEffects effects;
  private final ObjectMapper json;
  private final Clock clock;
  private final Duration tick;
  private final EngineFaults faults;
  private final Map<UUID, RolloutRun> runs = new HashMap<>();
  private final Map<UUID, RolloutRules> rules = new HashMap<>();
  private final Set<String> resend = new HashSet<>();
  private final Semaphore wake = new Semaphore(0);
  private final java.util.Queue<NodeEffects.Failure> failed =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  private final java.util.Queue<NodeEffects.Outcome> outcomes =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  // Nodes of finished rollouts whose drain was still running: undone when it reports.
  private final Map<String, NodeOutage> abandoned = new HashMap<>();
  private volatile boolean running = true;
  private volatile boolean leading;
  private Thread thread;
  private Instant lastRefresh = Instant.EPOCH;

  RolloutEngine(
      RolloutLog log,
      RolloutProgressStore store,
      FleetObserver observer,
      EngineLeadership leadership,
      NodeEffects effects,
      ObjectMapper json,
      Clock clock,
      Duration tick,
      EngineFaults faults) {
    this.log = log;
    this.store = store;
    this.observer = observer;
    this.leadership = leadership;
    this.effects = effects;
    this.json = json;
    this.clock = clock;
    this.tick = tick;
    this.faults = faults;
  }

  public void start() {
    observer.start();
    thread = Thread.ofPlatform().name("rollout-engine").start(this::loop);
  }

  /** Whether this engine is the leader now. */
  public boolean leading() {
    return leading;
  }

  /** Runs a round soon (a request arrived, a node reported). */
  public void wakeUp() {
    if (wake.availablePermits() == 0) {
      wake.release();
    }
  }

  private void loop() {
    while (running) {
      try {
        if (!leadership.lead()) {
          leading = false;
          pause(tick.multipliedBy(10));
          continue;
        }
        if (!leading) {
          takeOver();
          leading = true;
        }
        round();
      } catch (EngineFaults.EngineCrash crash) {
        LOG.warnf("rollout engine crashed on purpose: %s", crash.getMessage());
        leading = false;
        running = false;
        leadership.close();
        return;
      } catch (RuntimeException e) {
        LOG.errorf(e, "rollout engine round failed; it starts over from the log");
        leading = false;
      }
      pause(tick);
    }
  }

  private void pause(Duration duration) {
    try {
      if (wake.tryAcquire(duration.toMillis(), TimeUnit.MILLISECONDS)) {
        wake.drainPermits();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  /** Folds every rollout from offset 0 and writes the projection of each once. */
  private void takeOver() {
    runs.clear();
    rules.clear();
    resend.clear();
    Map<UUID, List<Envelope<RolloutEvent>>> logged = log.readAll();
    for (Map.Entry<UUID, List<Envelope<RolloutEvent>>> entry : logged.entrySet()) {
      List<Envelope<RolloutEvent>> events = entry.getValue();
      RolloutRun run;
      try {
        run = RolloutRun.from(entry.getKey(), events.getFirst());
      } catch (IllegalArgumentException e) {
        LOG.errorf("skipping rollout %s: %s", entry.getKey(), e.getMessage());
        continue;
      }
      events.forEach(run::apply);
      runs.put(run.id(), run);
      for (NodeRun node : run.inFlight()) {
        resend.add(key(run.id(), node.node()));
      }
      for (NodeRun node : run.releasePending()) {
        resend.add(key(run.id(), node.node()));
      }
    }
    LOG.infof("rollout engine leads: %d rollout(s) folded from the log", runs.size());
    runs.values().stream()
        .flatMap(run -> run.inFlight().stream())
        .map(NodeRun::startedAt)
        .min(java.util.Comparator.naturalOrder())
        .ifPresent(observer::rewindTo);
    // A leader may have stopped between an append and its projection: write both again.
    for (RolloutRun run : runs.values()) {
      if (run.status().active()) {
        store.project(run, logged.get(run.id()), run.drainChanged(), false);
      }
    }
  }

  private void round() {
    Instant now = clock.instant();
    Map<UUID, List<OperatorRequest>> requests = store.pendingRequests();
    boolean refresh = Duration.between(lastRefresh, now).compareTo(Duration.ofSeconds(2)) >= 0;
    if (refresh) {
      lastRefresh = now;
    }
    Set<UUID> active = new HashSet<>();
    for (RolloutProgressStore.ActiveRollout stored : store.active()) {
      active.add(stored.id());
      RolloutRun run = runs.get(stored.id());
      RolloutRules limits = rules.get(stored.id());
      if (limits == null || run == null) {
        RolloutPlan plan = plan(stored.id());
        limits = RolloutRules.of(plan);
        rules.put(stored.id(), limits);
        if (run == null) {
          run = create(stored, plan);
        }
      }
      if (!run.status().active()) {
        // Finished in the log, not yet in the projection (the last leader stopped in between).
        store.project(run, List.of(), run.drainChanged(), false);
        continue;
      }
      advance(run, limits, requests.getOrDefault(run.id(), List.of()), refresh);
    }
    runs.keySet().retainAll(active);
    rules.keySet().retainAll(active);
    dropStaleOutcomes();
    for (Map.Entry<UUID, List<OperatorRequest>> entry : requests.entrySet()) {
      if (!active.contains(entry.getKey())) {
        for (OperatorRequest request : entry.getValue()) {
          store.markHandled(request.id(), "refused: the rollout is no longer active");
        }
      }
    }
  }

  /** The stored plan, read when this engine first meets the rollout (it never changes). */
  private RolloutPlan plan(UUID rollout) {
    try {
      return json.readValue(store.planJson(rollout), RolloutPlan.class);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(
          "the stored plan of rollout " + rollout + " does not read", e);
    }
  }

  private RolloutRun create(RolloutProgressStore.ActiveRollout stored, RolloutPlan plan) {
    List<List<String>> waves =
        plan.waves().stream().map(w -> w.nodes().stream().map(NodePlan::node).toList()).toList();
    List<Envelope<RolloutEvent>> first =
        RolloutLog.envelopes(
            stored.id(), 0, List.of(new RolloutCreated(stored.name(), waves)), clock.instant());
    log.append(first);
    RolloutRun run = RolloutRun.from(stored.id(), first.getFirst());
    runs.put(run.id(), run);
    store.project(run, first, run.drainChanged(), false);
    return run;
  }

  private void advance(
      RolloutRun run, RolloutRules limits, List<OperatorRequest> requests, boolean refresh) {
    RolloutDecider decider = new RolloutDecider(limits, effects.drainBound());
    List<OperatorRequest> waiting = new ArrayList<>(requests);
    List<Envelope<RolloutEvent>> appended = new ArrayList<>();
    List<Long> answered = new ArrayList<>();
    List<String> inFlight = run.inFlight().stream().map(NodeRun::node).toList();
    observer.watch(inFlight);
    if (refresh) {
      observer.refresh(inFlight);
    }
    resendTakenOver(run, limits);
    failHandOvers(run, limits, appended);
    appendDrainOutcomes(run, limits, appended);
    soakGateReadings(run, limits);
    for (int step = 0; step < MAX_STEPS_PER_ROUND; step++) {
      Instant now = clock.instant();
      List<Decision> decisions = decider.decide(run, waiting, observer::of, now);
      if (decisions.isEmpty()) {
        break;
      }
      List<RolloutEvent> events = new ArrayList<>();
      List<Decision.Start> starts = new ArrayList<>();
      List<Long> handled = new ArrayList<>();
      for (Decision decision : decisions) {
        switch (decision) {
          case Decision.Append append -> events.add(append.event());
          case Decision.Start start -> starts.add(start);
          case Decision.Handled done -> handled.add(done.requestId());
          case Decision.Refuse refuse -> {
            store.markHandled(refuse.requestId(), "refused: " + refuse.reason());
            waiting.removeIf(r -> r.id() == refuse.requestId());
          }
        }
      }
      NodeEffects.Started started = effects.prepare(run, limits, starts);
      events.addAll(started.events());
      if (events.isEmpty()) {
        continue;
      }
      List<Envelope<RolloutEvent>> envelopes =
          RolloutLog.envelopes(run.id(), run.seq(), events, now);
      log.append(envelopes);
      faults.afterAppend(envelopes);
      envelopes.forEach(run::apply);
      appended.addAll(envelopes);
      effects.release(run, limits, envelopes, outcomes, this::wakeUp);
      for (long id : handled) {
        answered.add(id);
        waiting.removeIf(r -> r.id() == id);
      }
      observer.watchStarted(started.nodes());
      effects.carryOut(run, limits, started.nodes(), failed, outcomes, this::wakeUp);
    }
    List<String> finished = new ArrayList<>();
    for (String node : inFlight) {
      if (!run.nodeRun(node).inFlight()) {
        finished.add(node);
      }
    }
    observer.unwatch(finished);
    if (!run.status().active()) {
      abandonInFlight(run, limits);
    }
    if (!appended.isEmpty()) {
      store.project(run, appended, run.drainChanged(), decider.awaitingPromotion(run));
    }
    // Answered only once the projection shows the outcome, so the caller reads it back.
    answered.forEach(id -> store.markHandled(id, "done"));
  }

  /**
   * Nodes in flight when this engine took over: their spec (and driver) is sent again, after taking
   * them out of service again where that is not in the log. Nodes that finished out of service
   * without an outcome in the log are put back (or kept out) again.
   */
  private void resendTakenOver(RolloutRun run, RolloutRules limits) {
    List<String> again = new ArrayList<>();
    for (NodeRun node : run.inFlight()) {
      if (resend.remove(key(run.id(), node.node()))) {
        again.add(node.node());
      }
    }
    if (!again.isEmpty()) {
      LOG.infof(
          "rollout %s: sending %d in-flight node(s) their spec again", run.name(), again.size());
      effects.carryOut(run, limits, again, failed, outcomes, this::wakeUp);
    }
    for (NodeRun node : run.releasePending()) {
      if (resend.remove(key(run.id(), node.node()))) {
        effects.releaseAgain(run, limits, node, outcomes, this::wakeUp);
      }
    }
  }

  /**
   * What the drain reported: nodes now out of service get their spec (the event is in the log
   * first), nodes back in service or kept out free their slot. A report for an older start of the
   * node, or one already in the log, is dropped.
   */
  private void appendDrainOutcomes(
      RolloutRun run, RolloutRules limits, List<Envelope<RolloutEvent>> appended) {
    List<RolloutEvent> events = new ArrayList<>();
    List<String> drained = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    outcomes.removeIf(
        outcome -> {
          if (!outcome.rollout().equals(run.id())) {
            return !runs.containsKey(outcome.rollout());
          }
          NodeRun node = run.nodeRun(outcome.node());
          if (node == null
              || node.generation() != outcome.generation()
              || !seen.add(outcome.node())) {
            return true;
          }
          if (outcome.event() instanceof NodeTakenOutOfService && !node.inFlight()) {
            // Failed meanwhile (its timeout): nobody follows this drain any more.
            effects.abandon(
                NodeEffects.outage(run, limits, node),
                "taken out of service after it had failed: " + node.reason());
            return true;
          }
          boolean wanted =
              switch (outcome.event()) {
                case NodeTakenOutOfService out -> node.inFlight() && !node.outOfService();
                case NodeReturnedToService back -> node.releasePending();
                case NodeKeptOutOfService kept -> node.releasePending();
                default -> false;
              };
          if (wanted) {
            events.add(outcome.event());
            if (outcome.event() instanceof NodeTakenOutOfService) {
              drained.add(outcome.node());
            }
          }
          return true;
        });
    if (events.isEmpty()) {
      return;
    }
    Instant now = clock.instant();
    List<Envelope<RolloutEvent>> envelopes = RolloutLog.envelopes(run.id(), run.seq(), events, now);
    log.append(envelopes);
    envelopes.forEach(run::apply);
    appended.addAll(envelopes);
    effects.carryOut(run, limits, drained, failed, outcomes, this::wakeUp);
  }

  /** Before the health gate of a wave whose soak ended, read its nodes from the projection. */
  private void soakGateReadings(RolloutRun run, RolloutRules limits) {
    int wave = run.currentWave();
    if (wave > 0
        && run.status() == RunStatus.RUNNING
        && run.waveCompleted(wave)
        && !clock.instant().isBefore(run.waveCompletedAt(wave).plus(limits.soak()))) {
      observer.refresh(run.wave(wave));
    }
  }

  /** Nodes whose spec or driver request could not be handed over fail with the reason. */
  private void failHandOvers(
      RolloutRun run, RolloutRules limits, List<Envelope<RolloutEvent>> appended) {
    Instant now = clock.instant();
    List<RolloutEvent> events = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    failed.removeIf(
        failure -> {
          if (!failure.rollout().equals(run.id())) {
            return !runs.containsKey(failure.rollout());
          }
          NodeRun node = run.nodeRun(failure.node());
          if (node != null
              && node.inFlight()
              && node.generation() == failure.generation()
              && seen.add(failure.node())) {
            events.add(
                new NodeFailed(
                    node.wave(),
                    node.node(),
                    node.phase(),
                    failure.reason(),
                    Math.max(0, Duration.between(node.startedAt(), now).toMillis())));
          }
          return true;
        });
    if (events.isEmpty()) {
      return;
    }
    List<Envelope<RolloutEvent>> envelopes = RolloutLog.envelopes(run.id(), run.seq(), events, now);
    log.append(envelopes);
    envelopes.forEach(run::apply);
    appended.addAll(envelopes);
    effects.release(run, limits, envelopes, outcomes, this::wakeUp);
  }

  /**
   * A rollout that stopped (aborted) with nodes in flight: those out of service get their pauses
   * undone now and stay cordoned; those still draining when their drain reports.
   */
  private void abandonInFlight(RolloutRun run, RolloutRules limits) {
    if (effects.drainBound().isZero()) {
      return;
    }
    String reason = "rollout " + run.name() + " is " + run.status().state().wireName();
    for (NodeRun node : run.inFlight()) {
      NodeOutage outage = NodeEffects.outage(run, limits, node);
      if (node.outOfService()) {
        effects.abandon(outage, reason);
      } else {
        abandoned.put(key(run.id(), node.node()) + "/" + node.generation(), outage);
      }
    }
  }

  /** Reports for rollouts no longer run here: a finished drain of an abandoned node is undone. */
  private void dropStaleOutcomes() {
    outcomes.removeIf(
        outcome -> {
          if (runs.containsKey(outcome.rollout())) {
            return false;
          }
          NodeOutage outage =
              abandoned.remove(key(outcome.rollout(), outcome.node()) + "/" + outcome.generation());
          if (outage != null && outcome.event() instanceof NodeTakenOutOfService) {
            effects.abandon(outage, "taken out of service after its rollout stopped");
          }
          return true;
        });
    failed.removeIf(
        failure -> {
          if (runs.containsKey(failure.rollout())) {
            return false;
          }
          abandoned.remove(key(failure.rollout(), failure.node()) + "/" + failure.generation());
          return true;
        });
  }

  private static String key(UUID rollout, String node) {
    return rollout + "/" + node;
  }

  @Override
  public void close() {
    running = false;
    wakeUp();
    if (thread != null) {
      try {
        thread.join(Duration.ofSeconds(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    observer.close();
    leadership.close();
    log.close();
  }
}
