package io.fleetwave.agent.reconcile;

import io.fleetwave.events.node.PlannedStep;
import java.util.ArrayList;
import java.util.List;

/**
 * The ordered steps that take a node from what it is to what spec {@code generation} says; empty
 * when the node already matches (and its gate is released).
 */
public record Plan(long generation, List<Step> steps) {
  public Plan {
    steps = List.copyOf(steps);
  }

  public boolean isEmpty() {
    return steps.isEmpty();
  }

  /** The steps as the progress events describe them (SpecAccepted). */
  public List<PlannedStep> described() {
    List<PlannedStep> described = new ArrayList<>(steps.size());
    for (int i = 0; i < steps.size(); i++) {
      described.add(steps.get(i).describe(i));
    }
    return described;
  }
}
