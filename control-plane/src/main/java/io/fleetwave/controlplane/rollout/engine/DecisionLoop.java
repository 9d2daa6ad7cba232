package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.RolloutEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * The engine's loop over one rollout, pure and shared by the engine and its tests: gather, decide,
 * append (the append returns once Kafka acknowledged), fold, carry out the effects of what was
 * appended; again until the decider has nothing left to say or the step bound is spent. Nothing but
 * the decider's events is appended.
 */
final class DecisionLoop {
  /** Reads what the decider needs; {@code candidates} are the nodes it may start next. */
  interface Gather {
    DeciderInput gather(RolloutRun run, List<String> candidates, List<OperatorRequest> waiting);
  }

  /** Appends the events as the rollout's next envelopes; returns once they are acknowledged. */
  interface Append {
    List<Envelope<RolloutEvent>> append(RolloutRun run, List<RolloutEvent> events);
  }

  /** Carries out what the appended (and already folded) events announce. */
  interface Effects {
    void of(RolloutRun run, List<Envelope<RolloutEvent>> appended);
  }

  /** What one settle appended and how it answered the requests it was given. */
  record Settled(List<Envelope<RolloutEvent>> appended, List<OperatorOutcome> verdicts) {}

  private DecisionLoop() {}

  static Settled settle(
      RolloutRun run,
      RolloutDecider decider,
      List<OperatorRequest> requests,
      Gather gather,
      Append append,
      Effects effects,
      int maxSteps) {
    List<OperatorRequest> waiting = new ArrayList<>(requests);
    List<Envelope<RolloutEvent>> appended = new ArrayList<>();
    List<OperatorOutcome> verdicts = new ArrayList<>();
    for (int step = 0; step < maxSteps; step++) {
      DeciderInput input = gather.gather(run, decider.startCandidates(run), waiting);
      Decision decision = decider.decide(run, input);
      if (decision.isEmpty()) {
        break;
      }
      if (!decision.events().isEmpty()) {
        List<Envelope<RolloutEvent>> envelopes = append.append(run, decision.events());
        envelopes.forEach(run::apply);
        appended.addAll(envelopes);
        effects.of(run, envelopes);
      }
      for (OperatorOutcome verdict : decision.verdicts()) {
        verdicts.add(verdict);
        waiting.removeIf(r -> r.id() == verdict.requestId());
      }
    }
    return new Settled(appended, verdicts);
  }
}
