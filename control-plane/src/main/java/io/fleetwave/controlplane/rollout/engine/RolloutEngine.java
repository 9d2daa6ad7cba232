package io.fleetwave.controlplane.rollout.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.facts.ControlFactLog;
import io.fleetwave.controlplane.logging.LogContext;
import io.fleetwave.core.rollout.decide.LoggedRecord;
import io.fleetwave.core.rollout.decide.NodeRun;
import io.fleetwave.core.rollout.decide.OperatorRequest;
import io.fleetwave.core.rollout.decide.RolloutFold;
import io.fleetwave.core.rollout.decide.RolloutRun;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.RolloutEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
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
 * Runs every active rollout: the loop, the leadership and the takeover. One leader at a time (a
 * PostgreSQL lease with a term, {@link EngineLeadership}): every append carries the term, and the
 * engine checks that it still leads in that term before each append and before carrying out what
 * the append announced ({@link RolloutAppender}). On taking over it folds every live rollout from
 * fleet.rollout-events (from where its records start, as the projection keeps it), so what it
 * decides next depends on the log alone: a node with a NodeStarted is never started again (its spec
 * is re-sent idempotently, from the effects' ledger the takeover rebuilds), a pending node is never
 * skipped. A rollout whose log cannot be folded fails alone, by the decider's verdict; the others
 * go on.
 *
 * <p>Each round, each rollout ({@link RolloutRound}): the operator requests, then the decider step
 * by step; every step's events are appended to Kafka and acknowledged before they are folded,
 * before their effects are dispatched ({@link RolloutEffects}, one effect per event), and before
 * the projection shows them. The loop wakes on a node's result from the head of fleet.node-events,
 * on its tick, or when a request arrives.
 */
public final class RolloutEngine implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(RolloutEngine.class);

  private final RolloutLog log;
  private final RolloutProgressStore store;
  private final FleetObserver observer;
  private final EngineLeadership leadership;
  private final Clock clock;
  private final Duration tick;
  private final ObjectMapper json;
  private final RolloutAppender appender;
  private final RolloutEffects effects;
  private final RolloutBook book;
  private final RolloutRound rounds;
  private final EngineOutages outages;
  private final OperatorAnswers answers;
  private final Semaphore wake = new Semaphore(0);
  // Rollouts found in the tables as logged but not folded, taken over again for them once.
  private final Set<UUID> refolded = new HashSet<>();
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
      EngineFaults faults,
      ControlFactLog facts) {
    this.log = log;
    this.store = store;
    this.observer = observer;
    this.leadership = leadership;
    this.clock = clock;
    this.tick = tick;
    this.json = json;
    this.outages = new EngineOutages(clock);
    this.appender = new RolloutAppender(log, leadership, clock, faults, outages, () -> term);
    this.effects = new RolloutEffects(effects, observer, clock, this::wakeUp);
    this.book = new RolloutBook(store, json, appender);
    this.answers = new OperatorAnswers(facts, store, clock);
    this.rounds = new RolloutRound(store, observer, this.effects, appender, answers, clock);
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
        }
        round();
        outages.databaseBack();
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
        outages.kafkaAway(e.getMessage());
        leading = false;
      } catch (RuntimeException e) {
        outages.roundFailed(e);
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

  /**
   * Folds every live rollout from where its records start (the projection keeps that place, so the
   * topic's finished rollouts are neither read nor folded) and writes the projection of each once.
   * A rollout whose log cannot be folded fails alone ({@link RolloutFold}): its RolloutFailed is
   * appended and projected, and the others are taken over as usual.
   */
  private void takeOver() {
    long started = System.nanoTime();
    book.clear();
    effects.clear();
    Map<UUID, List<LoggedRecord>> logged = log.readLive(store.active());
    term = leadership.raiseAbove(RolloutLog.highestTerm(logged));
    Map<UUID, List<Envelope<RolloutEvent>>> folded = new HashMap<>();
    for (Map.Entry<UUID, List<LoggedRecord>> entry : logged.entrySet()) {
      try (LogContext.Scope _ = LogContext.rollout(entry.getKey())) {
        takeOverRollout(entry.getKey(), entry.getValue(), folded);
      }
    }
    leadership.check(term);
    refolded.removeAll(book.ids());
    lastTakeOverRecords = log.lastScanned();
    book.runs().stream()
        .flatMap(run -> run.inFlight().stream())
        .map(NodeRun::startedAt)
        .min(Comparator.naturalOrder())
        .ifPresent(observer::rewindTo);
    book.projectAgain(folded, effects.drainBound());
    lastTakeOver = Duration.ofNanos(System.nanoTime() - started);
    LOG.infof(
        "rollout engine leads in term %d: %d rollout(s) folded, %d record(s) read in %d ms",
        term, book.runs().size(), lastTakeOverRecords, lastTakeOver.toMillis());
  }

  /**
   * Takes one rollout over from its records: folded, failed by the decider's verdict if they cannot
   * be, kept, and what its log says is owed put on the effects' ledger.
   */
  private void takeOverRollout(
      UUID id, List<LoggedRecord> records, Map<UUID, List<Envelope<RolloutEvent>>> folded) {
    LoggedPlan.Check check = new LoggedPlan.Check(json);
    RolloutFold.Folded fold = RolloutFold.fold(id, records, check);
    RolloutAppender.logIgnored(id, fold);
    RolloutRun run = fold.run();
    if (run != null) {
      check.rulesOf(LoggedPlan.of(run)).ifPresent(read -> book.ruledBy(id, read));
    }
    List<Envelope<RolloutEvent>> events = new ArrayList<>(fold.folded());
    if (fold.verdict() != null) {
      run = run != null ? run : RolloutRun.uncreated(id);
      events.addAll(appender.fail(run, fold.verdict(), fold.nextSeq()));
    }
    if (run == null) {
      // Its creation is not complete in the log (a leader stopped between chunks): it is
      // logged again from the stored request, and what is logged already folds as duplicates.
      return;
    }
    LoggedRecord first = records.getFirst();
    store.logged(id, first.partition(), first.offset());
    book.put(run);
    folded.put(run.id(), events);
    effects.takenOver(run);
  }

  private void round() {
    Instant now = clock.instant();
    answers.settle();
    Map<UUID, List<OperatorRequest>> requests = answers.unanswered(store.pendingRequests());
    boolean refresh = Duration.between(lastRefresh, now).compareTo(Duration.ofSeconds(2)) >= 0;
    if (refresh) {
      lastRefresh = now;
    }
    Set<UUID> active = new HashSet<>();
    for (RolloutProgressStore.ActiveRollout stored : store.active()) {
      active.add(stored.id());
      try (LogContext.Scope _ = LogContext.rollout(stored.id())) {
        RolloutRun run = book.get(stored.id());
        if (run == null && stored.logged() && refolded.add(stored.id())) {
          // Logged, not folded here: a rebuild put its rows back under this leader. Taken over
          // from the log (logged again as new, its nodes would start again); once per rollout.
          LOG.infof(
              "rollout %s (%s) is back in the tables: taking the rollouts over again from the log",
              stored.name(), stored.id());
          leading = false;
          return;
        }
        run = run != null ? run : book.create(stored);
        if (run.status().active()) {
          rounds.advance(run, book.rules(run), requests.getOrDefault(run.id(), List.of()), refresh);
        } else {
          // Finished in the log, not yet in the projection (the last leader stopped in between).
          store.project(run, List.of(), run.drainChanged(), false);
        }
      }
    }
    book.retain(active);
    effects.dropReportsOutside(book.ids());
    answers.refuseFinished(requests, active);
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
