package io.fleetwave.events.node;

import static io.fleetwave.events.payload.Require.notNegative;
import static io.fleetwave.events.payload.Require.notNull;
import static io.fleetwave.events.payload.Require.positive;

/** A step finished within its deadline. */
public record StepSucceeded(long generation, PlannedStep step, long elapsedMillis)
    implements NodeEvent {
  public StepSucceeded {
    positive(generation, "generation");
    notNull(step, "step");
    notNegative(elapsedMillis, "elapsedMillis");
  }
}
