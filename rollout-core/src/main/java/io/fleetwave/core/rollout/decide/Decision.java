package io.fleetwave.core.rollout.decide;

import io.fleetwave.events.rollout.RolloutEvent;
import java.util.List;

/**
 * What the decider decided in one step: the rollout events to append (in order, each a decision
 * already made: a {@code NodeStarted} carries its generation and restore point) and its verdicts on
 * the operator requests it looked at.
 */
public record Decision(List<RolloutEvent> events, List<OperatorOutcome> verdicts) {
  public static final Decision NONE = new Decision(List.of(), List.of());

  public Decision {
    events = List.copyOf(events);
    verdicts = List.copyOf(verdicts);
  }

  static Decision of(List<RolloutEvent> events) {
    return new Decision(events, List.of());
  }

  static Decision of(RolloutEvent event) {
    return new Decision(List.of(event), List.of());
  }

  public boolean isEmpty() {
    return events.isEmpty() && verdicts.isEmpty();
  }
}
