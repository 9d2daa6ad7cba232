package io.fleetwave.events.node;

import static io.fleetwave.events.node.Require.notNull;
import static io.fleetwave.events.node.Require.positive;

/** A step of the plan for spec {@code generation} began. */
public record StepStarted(long generation, PlannedStep step) implements NodeEvent {
  public StepStarted {
    positive(generation, "generation");
    notNull(step, "step");
  }
}
