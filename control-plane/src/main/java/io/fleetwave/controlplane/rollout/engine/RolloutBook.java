package io.fleetwave.controlplane.rollout.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.core.rollout.decide.RolloutDecider;
import io.fleetwave.core.rollout.decide.RolloutRules;
import io.fleetwave.core.rollout.decide.RolloutRun;
import io.fleetwave.core.rollout.decide.RunStatus;
import io.fleetwave.core.rollout.plan.NodePlan;
import io.fleetwave.core.rollout.plan.RolloutPlan;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.RolloutChunks;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutEvent;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The rollouts the leading engine runs, each folded from its log, with the rules it runs by; and
 * the logging of a rollout the API stored: its RolloutCreated (or a header and chunks) carries its
 * request and plan, so the log alone rebuilds it.
 */
final class RolloutBook {
  private final RolloutProgressStore store;
  private final ObjectMapper json;
  private final RolloutAppender appender;
  private final Map<UUID, RolloutRun> runs = new HashMap<>();
  private final Map<UUID, RolloutRules> rules = new HashMap<>();

  RolloutBook(RolloutProgressStore store, ObjectMapper json, RolloutAppender appender) {
    this.store = store;
    this.json = json;
    this.appender = appender;
  }

  void clear() {
    runs.clear();
    rules.clear();
  }

  RolloutRun get(UUID id) {
    return runs.get(id);
  }

  void put(RolloutRun run) {
    runs.put(run.id(), run);
  }

  /** Keeps the rules read from a plan as the takeover's fold checked it. */
  void ruledBy(UUID id, RolloutRules read) {
    rules.put(id, read);
  }

  Collection<RolloutRun> runs() {
    return runs.values();
  }

  Set<UUID> ids() {
    return Set.copyOf(runs.keySet());
  }

  /** Forgets the rollouts no longer active. */
  void retain(Set<UUID> active) {
    runs.keySet().retainAll(active);
    rules.keySet().retainAll(active);
  }

  /** The rules the rollout runs by, read from its plan once (the takeover's fold may have). */
  RolloutRules rules(RolloutRun run) {
    return rules.computeIfAbsent(run.id(), id -> RolloutRules.of(plan(run)));
  }

  /**
   * The rollout's plan: from its RolloutCreated; for a rollout logged before RolloutCreated carried
   * it (v1), from the row the API stored. It never changes.
   */
  private RolloutPlan plan(RolloutRun run) {
    try {
      return LoggedPlan.of(run) != null
          ? LoggedPlan.read(json, LoggedPlan.of(run))
          : json.readValue(store.creation(run.id()).planJson(), RolloutPlan.class);
    } catch (IOException e) {
      throw new IllegalStateException("the plan of rollout " + run.id() + " does not read", e);
    }
  }

  /**
   * Logs a rollout the API stored. One that cannot be logged (its request does not read, or its
   * plan has no wave, which the API refuses now but may have stored before) fails alone, by the
   * decider's verdict: not logged, it would be taken up again every round and stall the others.
   */
  RolloutRun create(RolloutProgressStore.ActiveRollout stored) {
    RolloutProgressStore.Creation creation = store.creation(stored.id());
    RolloutCreated created;
    try {
      created = creation(json, stored.name(), creation);
    } catch (IOException | IllegalArgumentException e) {
      RolloutRun run = RolloutRun.uncreated(stored.id());
      List<Envelope<RolloutEvent>> failure =
          appender.fail(run, RolloutDecider.cannotLog(stored.name(), e.getMessage()), 1);
      put(run);
      store.project(run, failure, run.drainChanged(), false);
      return run;
    }
    // One record, or a header and chunks where it would not fit in one (RolloutChunks).
    // Logged at the time the API stored it: a leader that logs it again (it stopped in between)
    // writes the same records.
    RolloutRun uncreated = RolloutRun.uncreated(stored.id());
    List<Envelope<RolloutEvent>> first =
        appender.envelopes(uncreated, 0, RolloutChunks.of(created), creation.createdAt());
    RolloutLog.Position start = appender.append(first).getFirst();
    RolloutAppender.logDecisions(stored.name(), first);
    // Where it starts, before the projection (which may take a while at 100,000 nodes): a leader
    // that takes over reads it from there rather than logging it again.
    store.logged(stored.id(), start.partition(), start.offset());
    RolloutRun run =
        RolloutRun.created(stored.id(), created, first.getLast().seq(), first.getLast().epoch());
    put(run);
    store.project(run, first, run.drainChanged(), false);
    return run;
  }

  /** The RolloutCreated that logs a rollout as the API stored it (the same every time). */
  static RolloutCreated creation(
      ObjectMapper json, String name, RolloutProgressStore.Creation creation) throws IOException {
    RolloutPlan plan = json.readValue(creation.planJson(), RolloutPlan.class);
    List<List<String>> waves =
        plan.waves().stream().map(w -> w.nodes().stream().map(NodePlan::node).toList()).toList();
    return new RolloutCreated(
        name,
        waves,
        json.readTree(creation.specJson()),
        json.readTree(creation.planJson()),
        creation.actor());
  }

  /**
   * After a takeover, each run's projection written again: a leader may have stopped between an
   * append and its projection.
   */
  void projectAgain(Map<UUID, List<Envelope<RolloutEvent>>> folded, Duration drainBound) {
    for (RolloutRun run : runs()) {
      if (run.status().active()) {
        RolloutDecider decider = new RolloutDecider(rules(run), drainBound);
        store.project(
            run, folded.get(run.id()), run.drainChanged(), decider.awaitingPromotion(run));
      } else if (run.status() == RunStatus.FAILED) {
        store.project(run, folded.get(run.id()), run.drainChanged(), false);
      }
    }
  }
}
