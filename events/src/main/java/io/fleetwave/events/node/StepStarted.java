package io.fleetwave.events.node;

import static io.fleetwave.events.payload.Require.notNull;
import static io.fleetwave.events.payload.Require.positive;

/** A step of the plan for spec {@code generation} began. */
public record StepStarted(long generation, PlannedStep step) implements NodeEvent {
  public StepStarted {
    positive(generation, "generation");
    notNull(step, "step");
  }
}
