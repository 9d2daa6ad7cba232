package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.core.rollout.decide.DeciderInput;
import io.fleetwave.core.rollout.decide.DecisionLoop;
import io.fleetwave.core.rollout.decide.EffectReport;
import io.fleetwave.core.rollout.decide.NodeRun;
import io.fleetwave.core.rollout.decide.OperatorRequest;
import io.fleetwave.core.rollout.decide.RolloutDecider;
import io.fleetwave.core.rollout.decide.RolloutRules;
import io.fleetwave.core.rollout.decide.RolloutRun;
import io.fleetwave.core.rollout.decide.RunStatus;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.RolloutEvent;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One round of one rollout: gather, decide, append (acknowledged), fold, dispatch the effects of
 * what was appended, until the decider has nothing left ({@link DecisionLoop}); then the
 * projection, and only then the answers to the requests, so a caller reads the outcome back.
 */
final class RolloutRound {
  private static final int MAX_STEPS_PER_ROUND = 64;

  private final RolloutProgressStore store;
  private final FleetObserver observer;
  private final RolloutEffects effects;
  private final RolloutAppender appender;
  private final OperatorAnswers answers;
  private final Clock clock;

  RolloutRound(
      RolloutProgressStore store,
      FleetObserver observer,
      RolloutEffects effects,
      RolloutAppender appender,
      OperatorAnswers answers,
      Clock clock) {
    this.store = store;
    this.answers = answers;
    this.observer = observer;
    this.effects = effects;
    this.appender = appender;
    this.clock = clock;
  }

  void advance(
      RolloutRun run, RolloutRules limits, List<OperatorRequest> requests, boolean refresh) {
    RolloutDecider decider = new RolloutDecider(limits, effects.drainBound());
    List<String> inFlight = run.inFlight().stream().map(NodeRun::node).toList();
    observer.watch(inFlight);
    if (refresh) {
      observer.refresh(inFlight);
    }
    effects.carryOutDue(run, limits);
    List<EffectReport> reported = effects.reportsOf(run.id());
    Set<String> revoked = effects.nodeEffects().revokedNodes();
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
                      effects.nodeEffects().desiredSpecs(candidates),
                      reported,
                      revoked);
              timings.gathered(candidates.size(), gathering);
              return input;
            },
            (r, events) -> {
              timings.decided();
              List<Envelope<RolloutEvent>> envelopes = appender.decided(r, events);
              timings.appended(envelopes.size());
              appender.logged(r, envelopes);
              timings.logged();
              return envelopes;
            },
            (r, appended) -> {
              timings.folded();
              effects.dispatch(r, limits, appended);
              timings.carriedOut(r.name());
            },
            MAX_STEPS_PER_ROUND);
    effects.abandonLateDrains(run, limits, reported);
    List<String> finished = new ArrayList<>();
    for (String node : inFlight) {
      if (!run.nodeRun(node).inFlight()) {
        finished.add(node);
      }
    }
    observer.unwatch(finished);
    if (!settled.appended().isEmpty()) {
      long projecting = System.nanoTime();
      store.project(run, settled.appended(), run.drainChanged(), decider.awaitingPromotion(run));
      timings.projected(run.name(), settled.appended().size(), projecting);
    }
    settled.verdicts().forEach(verdict -> answers.answer(run.id(), verdict));
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
}
