package io.fleetwave.core.rollout.decide;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.RolloutEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine's loop over one rollout, pure and shared by the engine and its tests: gather, decide,
 * append (the append returns once Kafka acknowledged), fold, carry out the effects of what was
 * appended; again until the decider has nothing left to say or the step bound is spent. Nothing but
 * the decider's events is appended. Within one settle each node's observation is read once.
 */
public final class DecisionLoop {
  /** Reads what the decider needs; {@code candidates} are the nodes it may start next. */
  public interface Gather {
    DeciderInput gather(RolloutRun run, List<String> candidates, List<OperatorRequest> waiting);
  }

  /** Appends the events as the rollout's next envelopes; returns once they are acknowledged. */
  public interface Append {
    List<Envelope<RolloutEvent>> append(RolloutRun run, List<RolloutEvent> events);
  }

  /** Carries out what the appended (and already folded) events announce. */
  public interface Effects {
    void of(RolloutRun run, List<Envelope<RolloutEvent>> appended);
  }

  /** What one settle appended and how it answered the requests it was given. */
  public record Settled(List<Envelope<RolloutEvent>> appended, List<OperatorOutcome> verdicts) {}

  private DecisionLoop() {}

  public static Settled settle(
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
    // One reading of each node per settle: a result that arrives while a step's append waits for
    // Kafka is taken in the next round, not in the next step. Otherwise, with results arriving
    // faster than appends are acknowledged (a wave of 1,000 nodes finishing over a second or two),
    // every step records the latest results (they come first) and the nodes their predecessors
    // freed are not started until the results stop; read once, the step after the results starts
    // those nodes.
    Map<String, Observation> seen = new HashMap<>();
    for (int step = 0; step < maxSteps; step++) {
      DeciderInput gathered = gather.gather(run, decider.startCandidates(run), waiting);
      DeciderInput input =
          new DeciderInput(
              gathered.now(),
              gathered.requests(),
              node -> seen.computeIfAbsent(node, gathered.fleet()),
              gathered.desired(),
              gathered.reports(),
              gathered.revoked());
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
        waiting.removeIf(r -> r.id().equals(verdict.requestId()));
      }
    }
    return new Settled(appended, verdicts);
  }
}
