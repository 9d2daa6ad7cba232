package io.fleetwave.controlplane.rollout.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.logging.LogContext;
import io.fleetwave.controlplane.rollout.drain.NodeOutage;
import io.fleetwave.controlplane.rollout.plan.NodePlan;
import io.fleetwave.controlplane.rollout.plan.RolloutPlan;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.RolloutChunks;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutFailed;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Runs every active rollout. One leader at a time (a PostgreSQL lease with a term, {@link
 * EngineLeadership}): every append carries the term, and the engine checks that it still leads in
 * that term before each append and before carrying out what the append announced. On taking over it
 * folds every live rollout from fleet.rollout-events (from where its records start, as the
 * projection keeps it), so what it decides next depends on the log alone: a node with a NodeStarted
 * is never started again (its spec is re-sent idempotently), a pending node is never skipped. A
 * rollout whose log cannot be folded fails alone (RolloutFailed); the others go on.
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
  // How soon a spec the broker did not take is offered to it again.
  private static final Duration BROKER_RETRY = Duration.ofSeconds(2);

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
  // Nodes whose spec the broker did not take (it was away), and when to send it again.
  private final Map<String, Instant> sendAgain = new java.util.concurrent.ConcurrentHashMap<>();
  // Since when Kafka has not taken the engine's appends or given its log back; null while it does.
  private Instant kafkaAwaySince;
  private final Semaphore wake = new Semaphore(0);
  // What effects reported, for the decider to record (effects never append).
  private final java.util.Queue<EffectReport> reports =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  // Nodes of finished rollouts whose drain was still running: undone when it reports.
  private final Map<String, NodeOutage> abandoned = new HashMap<>();
  private volatile boolean running = true;
  private volatile boolean leading;
  private volatile long term;
  private Thread thread;
  private Instant lastRefresh = Instant.EPOCH;
  private volatile Duration lastTakeOver;
  private volatile long lastTakeOverRecords;

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
    leadership.start(this::wakeUp);
    thread = Thread.ofPlatform().name("rollout-engine").start(this::loop);
  }

  /** Whether this engine is the leader now (and may still act as one). */
  public boolean leading() {
    return leading && leadership.term() == term;
  }

  /** The term this engine leads in, or 0. */
  public long term() {
    return leading() ? term : 0;
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
        long held = leadership.term();
        if (held == 0) {
          leading = false;
          pause(tick.multipliedBy(10));
          continue;
        }
        if (!leading || held != term) {
          term = held;
          takeOver();
          leading = true;
          kafkaBack();
        }
        round();
      } catch (EngineLeadership.LeadershipLost lost) {
        LOG.warnf("rollout engine stopped acting: %s", lost.getMessage());
        leading = false;
      } catch (EngineFaults.EngineCrash crash) {
        LOG.warnf("rollout engine crashed on purpose: %s", crash.getMessage());
        leading = false;
        running = false;
        leadership.close();
        return;
      } catch (RolloutLog.RolloutLogException e) {
        // An append Kafka did not acknowledge: nothing after it ran (no fold, no effect, no
        // verdict). The next attempt folds the log again, so whatever Kafka did store counts once.
        kafkaAway(e);
        leading = false;
      } catch (RuntimeException e) {
        LOG.errorf(e, "rollout engine round failed; it starts over from the log");
        leading = false;
      }
      pause(tick);
    }
  }

  /** One log line when Kafka stops taking the engine's appends, however many attempts follow. */
  private void kafkaAway(RolloutLog.RolloutLogException e) {
    if (kafkaAwaySince == null) {
      kafkaAwaySince = clock.instant();
      LOG.warnf(
          "rollout engine waiting for Kafka: %s; it decides again from the log once Kafka takes"
              + " appends (nothing after the unacknowledged append was carried out)",
          e.getMessage());
    }
  }

  private void kafkaBack() {
    if (kafkaAwaySince != null) {
      LOG.infof(
          "rollout engine resumed: Kafka is back after %.1f s",
          Duration.between(kafkaAwaySince, clock.instant()).toMillis() / 1000.0);
      kafkaAwaySince = null;
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

  /**
   * Folds every live rollout from where its records start (the projection keeps that place, so the
   * topic's finished rollouts are neither read nor folded) and writes the projection of each once.
   * A rollout whose log cannot be folded fails alone ({@link RolloutFold}): its RolloutFailed is
   * appended and projected, and the others are taken over as usual.
   */
  private void takeOver() {
    long started = System.nanoTime();
    takeOverFromTheLog();
    lastTakeOver = Duration.ofNanos(System.nanoTime() - started);
    LOG.infof("rollout engine took over in %d ms", lastTakeOver.toMillis());
  }

  /** The term this engine leads in now, or 0 when it does not lead (or may no longer act). */
  public long leadingTerm() {
    return running ? leadership.term() : 0;
  }

  /** How long this engine's last takeover took (reading, folding, projecting); null before one. */
  Duration lastTakeOver() {
    return lastTakeOver;
  }

  /** How many records of fleet.rollout-events this engine's last takeover read (of any rollout). */
  long lastTakeOverRecords() {
    return lastTakeOverRecords;
  }

  private void takeOverFromTheLog() {
    runs.clear();
    rules.clear();
    resend.clear();
    sendAgain.clear();
    Map<UUID, List<LoggedRecord>> logged = readLive(store.active());
    Map<UUID, List<Envelope<RolloutEvent>>> folded = new HashMap<>();
    for (Map.Entry<UUID, List<LoggedRecord>> entry : logged.entrySet()) {
      UUID id = entry.getKey();
      try (LogContext.Scope _ = LogContext.rollout(id)) {
        takeOverRollout(id, entry.getValue(), folded);
      }
    }
    leadership.check(term);
    lastTakeOverRecords = log.lastScanned();
    LOG.infof(
        "rollout engine leads in term %d: %d rollout(s) folded, %d record(s) of the log read",
        term, runs.size(), lastTakeOverRecords);
    runs.values().stream()
        .flatMap(run -> run.inFlight().stream())
        .map(NodeRun::startedAt)
        .min(java.util.Comparator.naturalOrder())
        .ifPresent(observer::rewindTo);
    // A leader may have stopped between an append and its projection: write both again.
    for (RolloutRun run : runs.values()) {
      if (run.status().active()) {
        RolloutRules limits = rules(run);
        store.project(
            run,
            folded.get(run.id()),
            run.drainChanged(),
            new RolloutDecider(limits, effects.drainBound()).awaitingPromotion(run));
      } else if (run.status() == RunStatus.FAILED) {
        store.project(run, folded.get(run.id()), run.drainChanged(), false);
      }
    }
  }

  /** Takes one rollout over from its records: folded, failed if they cannot be, and kept. */
  private void takeOverRollout(
      UUID id, List<LoggedRecord> records, Map<UUID, List<Envelope<RolloutEvent>>> folded) {
    LoggedPlan.Check check = new LoggedPlan.Check(json);
    RolloutFold.Folded fold = RolloutFold.fold(id, records, check);
    logIgnored(id, fold);
    RolloutRun run = fold.run();
    if (run != null) {
      check.rulesOf(run.plan()).ifPresent(read -> rules.put(id, read));
    }
    List<Envelope<RolloutEvent>> events = new ArrayList<>(fold.folded());
    if (fold.verdict() != null) {
      run = run != null ? run : RolloutRun.uncreated(id);
      events.addAll(fail(run, fold.verdict(), fold.nextSeq()));
    }
    if (run == null) {
      // Its creation is not complete in the log (a leader stopped between chunks): it is
      // logged again from the stored request, and what is logged already folds as duplicates.
      return;
    }
    LoggedRecord first = records.getFirst();
    store.logged(id, first.partition(), first.offset());
    runs.put(run.id(), run);
    folded.put(run.id(), events);
    for (NodeRun node : run.inFlight()) {
      resend.add(key(run.id(), node.node()));
    }
    for (NodeRun node : run.releasePending()) {
      resend.add(key(run.id(), node.node()));
    }
  }

  /** Records of the log the fold ignored, with the reason (stale terms, duplicates). */
  static void logIgnored(UUID rollout, RolloutFold.Folded folded) {
    for (RolloutFold.Ignored ignored : folded.ignored()) {
      LOG.warnf(
          "rollout %s: ignoring %s at seq %d of term %d: %s",
          rollout,
          ignored.envelope().type(),
          ignored.envelope().seq(),
          ignored.envelope().epoch(),
          ignored.reason());
    }
  }

  /** One line per appended decision, about the rollout and, where it names one, the node. */
  private static void logDecisions(String rollout, List<Envelope<RolloutEvent>> appended) {
    for (Envelope<RolloutEvent> envelope : appended) {
      Optional<String> node = DecisionLines.node(envelope.data());
      try (LogContext.Scope _ = node.map(LogContext::node).orElse(() -> {})) {
        LOG.infof(
            "rollout %s #%d: %s", rollout, envelope.seq(), DecisionLines.describe(envelope.data()));
      }
    }
  }

  /** Appends as the leader of {@link #term}, checking that it still is before and after. */
  private List<RolloutLog.Position> append(List<Envelope<RolloutEvent>> envelopes) {
    leadership.check(term);
    List<RolloutLog.Position> positions = log.append(envelopes);
    // The lease may have lapsed while Kafka took the records: then a successor may not have read
    // them, so nothing they announce is carried out here.
    leadership.check(term);
    return positions;
  }

  /**
   * The records of the rollouts the engine runs: the logged active ones, each partition read from
   * the first record of its oldest live rollout. Rollouts the API stored but the engine has not
   * logged yet need none (they are logged when taken up; one logged but not yet projected is read
   * like the others). A live rollout whose start is not known (logged before the projection kept
   * it) makes this read the whole topic, once: the takeover records its start.
   */
  private Map<UUID, List<LoggedRecord>> readLive(List<RolloutProgressStore.ActiveRollout> active) {
    Set<UUID> live = new HashSet<>();
    Map<Integer, Long> from = new HashMap<>();
    boolean unknownStart = false;
    for (RolloutProgressStore.ActiveRollout rollout : active) {
      if (!rollout.logged() && rollout.logOffset() == null) {
        continue;
      }
      live.add(rollout.id());
      if (rollout.logOffset() == null) {
        unknownStart = true;
      } else {
        from.merge(rollout.logPartition(), rollout.logOffset(), Math::min);
      }
    }
    if (unknownStart) {
      Map<UUID, List<LoggedRecord>> all = log.readAll();
      all.keySet().retainAll(live);
      return all;
    }
    return log.read(from, live);
  }

  /**
   * Appends the verdict on a rollout whose log cannot be folded and folds it: the rollout stops for
   * good, with the record named in its status reason.
   *
   * @return the appended event
   */
  private List<Envelope<RolloutEvent>> fail(RolloutRun run, RolloutFailed verdict, long seq) {
    List<Envelope<RolloutEvent>> failure =
        RolloutLog.envelopes(run.id(), term, seq - 1, List.of(verdict), clock.instant());
    append(failure);
    logDecisions(run.name(), failure);
    run.apply(failure.getFirst());
    LOG.errorf("rollout %s failed, the others go on: %s", run.name(), verdict.describe());
    return failure;
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
      try (LogContext.Scope _ = LogContext.rollout(stored.id())) {
        round(stored, requests, refresh);
      }
    }
    runs.keySet().retainAll(active);
    rules.keySet().retainAll(active);
    dropStaleOutcomes();
    for (Map.Entry<UUID, List<OperatorRequest>> entry : requests.entrySet()) {
      if (!active.contains(entry.getKey())) {
        for (OperatorRequest request : entry.getValue()) {
          store.markHandled(RolloutDecider.noLongerActive(request));
        }
      }
    }
  }

  /** One rollout's part of a round: logged if it is new, then advanced. */
  private void round(
      RolloutProgressStore.ActiveRollout stored,
      Map<UUID, List<OperatorRequest>> requests,
      boolean refresh) {
    RolloutRun run = runs.get(stored.id());
    if (run == null) {
      run = create(stored);
    }
    if (!run.status().active()) {
      // Finished in the log, not yet in the projection (the last leader stopped in between).
      store.project(run, List.of(), run.drainChanged(), false);
      return;
    }
    advance(run, rules(run), requests.getOrDefault(run.id(), List.of()), refresh);
  }

  /** The rules the rollout runs by, read from its plan once (the takeover's fold may have). */
  private RolloutRules rules(RolloutRun run) {
    return rules.computeIfAbsent(run.id(), id -> RolloutRules.of(plan(run)));
  }

  /**
   * The rollout's plan: from its RolloutCreated; for a rollout logged before RolloutCreated carried
   * it (v1), from the row the API stored. It never changes.
   */
  private RolloutPlan plan(RolloutRun run) {
    try {
      return run.plan() != null
          ? LoggedPlan.read(json, run.plan())
          : json.readValue(store.creation(run.id()).planJson(), RolloutPlan.class);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("the plan of rollout " + run.id() + " does not read", e);
    }
  }

  /** Logs a rollout the API stored: its RolloutCreated carries its request and plan. */
  private RolloutRun create(RolloutProgressStore.ActiveRollout stored) {
    RolloutProgressStore.Creation creation = store.creation(stored.id());
    RolloutCreated created;
    try {
      created = creation(json, stored.name(), creation);
    } catch (java.io.IOException | IllegalArgumentException e) {
      // Not logged, it would be taken up again every round and stall the rollouts after it.
      return unloggable(stored, e);
    }
    // One record, or a header and chunks where it would not fit in one (RolloutChunks).
    // Logged at the time the API stored it: a leader that logs it again (it stopped in between)
    // writes the same records.
    List<Envelope<RolloutEvent>> first =
        RolloutLog.envelopes(stored.id(), term, 0, RolloutChunks.of(created), creation.createdAt());
    RolloutLog.Position start = append(first).getFirst();
    logDecisions(stored.name(), first);
    // Where it starts, before the projection (which may take a while at 100,000 nodes): a leader
    // that takes over reads it from there rather than logging it again.
    store.logged(stored.id(), start.partition(), start.offset());
    RolloutRun run =
        RolloutRun.created(stored.id(), created, first.getLast().seq(), first.getLast().epoch());
    runs.put(run.id(), run);
    store.project(run, first, run.drainChanged(), false);
    return run;
  }

  /**
   * A stored rollout that cannot be logged as created (its request does not read, or its plan has
   * no wave, which the API refuses now but may have stored before): it fails alone, its reason in
   * its status, so it leaves the active rollouts and the others go on.
   */
  private RolloutRun unloggable(RolloutProgressStore.ActiveRollout stored, Exception cause) {
    RolloutRun run = RolloutRun.uncreated(stored.id());
    RolloutFailed verdict =
        new RolloutFailed(
            io.fleetwave.events.Topics.ROLLOUT_EVENTS,
            RolloutFailed.NOT_LOGGED,
            RolloutFailed.NOT_LOGGED,
            "rollout " + stored.name() + " as stored cannot be logged: " + cause.getMessage());
    List<Envelope<RolloutEvent>> failure = fail(run, verdict, 1);
    runs.put(run.id(), run);
    store.project(run, failure, run.drainChanged(), false);
    return run;
  }

  /** The RolloutCreated that logs a rollout as the API stored it (the same every time). */
  static RolloutCreated creation(
      ObjectMapper json, String name, RolloutProgressStore.Creation creation)
      throws java.io.IOException {
    RolloutPlan plan = json.readValue(creation.planJson(), RolloutPlan.class);
    List<List<String>> waves =
        plan.waves().stream().map(w -> w.nodes().stream().map(NodePlan::node).toList()).toList();
    return RolloutDecider.created(
        name,
        waves,
        json.readTree(creation.specJson()),
        json.readTree(creation.planJson()),
        creation.actor());
  }

  /**
   * One round of one rollout: gather, decide, append (acknowledged), fold, carry out the effects of
   * what was appended, until the decider has nothing left ({@link DecisionLoop}); then the
   * projection, and only then the answers to the requests, so a caller reads the outcome back.
   */
  private void advance(
      RolloutRun run, RolloutRules limits, List<OperatorRequest> requests, boolean refresh) {
    RolloutDecider decider = new RolloutDecider(limits, effects.drainBound());
    List<String> inFlight = run.inFlight().stream().map(NodeRun::node).toList();
    observer.watch(inFlight);
    if (refresh) {
      observer.refresh(inFlight);
    }
    resendTakenOver(run, limits);
    List<EffectReport> reported = takeReports(run.id());
    soakGateReadings(run, limits);
    StepTimings timings = new StepTimings();
    DecisionLoop.Settled settled =
        DecisionLoop.settle(
            run,
            decider,
            requests,
            (r, candidates, waiting) -> {
              long gathering = System.nanoTime();
              DeciderInput input =
                  new DeciderInput(
                      clock.instant(),
                      waiting,
                      observer::of,
                      effects.desiredSpecs(candidates),
                      reported);
              timings.gathered(candidates.size(), gathering);
              return input;
            },
            (r, events) -> {
              timings.decided();
              List<Envelope<RolloutEvent>> envelopes =
                  RolloutLog.envelopes(r.id(), term, r.seq(), events, clock.instant());
              try {
                append(envelopes);
              } catch (RolloutLog.RecordRefusedException refused) {
                refuse(r, envelopes, refused);
              }
              timings.appended(envelopes.size());
              logDecisions(r.name(), envelopes);
              faults.afterAppend(envelopes);
              timings.logged();
              return envelopes;
            },
            (r, appended) -> {
              timings.folded();
              effectsOf(r, limits, appended);
              timings.carriedOut(r.name());
            },
            MAX_STEPS_PER_ROUND);
    abandonLateDrains(run, limits, reported);
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
    if (!settled.appended().isEmpty()) {
      long projecting = System.nanoTime();
      store.project(run, settled.appended(), run.drainChanged(), decider.awaitingPromotion(run));
      timings.projected(run.name(), settled.appended().size(), projecting);
    }
    settled.verdicts().forEach(store::markHandled);
  }

  /**
   * Kafka refused a decided event for good (too large): sending it again would fail forever, so the
   * rollout fails instead, above every seq the refused batch may have taken, and the engine starts
   * over from the log, which now ends this rollout, the others untouched.
   */
  private void refuse(
      RolloutRun run,
      List<Envelope<RolloutEvent>> envelopes,
      RolloutLog.RecordRefusedException refused) {
    RolloutFailed verdict =
        new RolloutFailed(
            io.fleetwave.events.Topics.ROLLOUT_EVENTS,
            RolloutFailed.NOT_LOGGED,
            RolloutFailed.NOT_LOGGED,
            refused.getMessage());
    fail(run, verdict, envelopes.getLast().seq() + 1);
    throw new IllegalStateException(
        "rollout " + run.name() + " failed: " + verdict.describe(), refused);
  }

  /**
   * The effects of appended events: a started node is taken out of service (with a drain) or sent
   * its spec and driver; a node now out of service is sent them; a finished node is put back in
   * service (or kept out).
   */
  private void effectsOf(
      RolloutRun run, RolloutRules limits, List<Envelope<RolloutEvent>> appended) {
    List<String> started = new ArrayList<>();
    List<String> drained = new ArrayList<>();
    for (Envelope<RolloutEvent> envelope : appended) {
      switch (envelope.data()) {
        case NodeStarted start -> started.add(start.node());
        case NodeTakenOutOfService out -> drained.add(out.node());
        default -> {}
      }
    }
    observer.watchStarted(started);
    effects.carryOut(
        run, limits, started, reports, this::wakeUp, nodes -> sendAgainLater(run.id(), nodes));
    effects.carryOut(
        run, limits, drained, reports, this::wakeUp, nodes -> sendAgainLater(run.id(), nodes));
    effects.release(run, limits, appended, reports, this::wakeUp);
  }

  /** The broker did not take these nodes' specs: offered again after a pause, failing no node. */
  private void sendAgainLater(UUID rollout, List<String> nodes) {
    Instant due = clock.instant().plus(BROKER_RETRY);
    nodes.forEach(node -> sendAgain.put(key(rollout, node), due));
  }

  /** This rollout's reports, taken off the queue (each is looked at by one round). */
  private List<EffectReport> takeReports(UUID rollout) {
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
  private void abandonLateDrains(RolloutRun run, RolloutRules limits, List<EffectReport> reported) {
    for (EffectReport report : reported) {
      NodeRun node = run.nodeRun(report.node());
      if (report instanceof EffectReport.TakenOutOfService
          && node != null
          && node.generation() == report.generation()
          && !node.inFlight()) {
        effects.abandon(
            NodeEffects.outage(run, limits, node),
            "taken out of service after it had failed: " + node.reason());
      }
    }
  }

  /**
   * Nodes in flight when this engine took over: the same effects as right after their NodeStarted
   * (their spec and driver sent again, after taking them out of service again where that is not in
   * the log). Nodes that finished out of service without an outcome in the log are put back (or
   * kept out) again.
   */
  private void resendTakenOver(RolloutRun run, RolloutRules limits) {
    List<String> again = new ArrayList<>();
    Instant now = clock.instant();
    for (NodeRun node : run.inFlight()) {
      String key = key(run.id(), node.node());
      Instant due = sendAgain.get(key);
      if (resend.remove(key) || (due != null && !now.isBefore(due) && sendAgain.remove(key, due))) {
        again.add(node.node());
      }
    }
    if (!again.isEmpty()) {
      LOG.infof(
          "rollout %s: sending %d in-flight node(s) their spec again", run.name(), again.size());
      effects.carryOut(
          run, limits, again, reports, this::wakeUp, nodes -> sendAgainLater(run.id(), nodes));
    }
    for (NodeRun node : run.releasePending()) {
      if (resend.remove(key(run.id(), node.node()))) {
        effects.releaseAgain(run, limits, node, reports, this::wakeUp);
      }
    }
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
    reports.removeIf(
        report -> {
          if (runs.containsKey(report.rollout())) {
            return false;
          }
          NodeOutage outage =
              abandoned.remove(key(report.rollout(), report.node()) + "/" + report.generation());
          if (outage != null && report instanceof EffectReport.TakenOutOfService) {
            effects.abandon(outage, "taken out of service after its rollout stopped");
          }
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
