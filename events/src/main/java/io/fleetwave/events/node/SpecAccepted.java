package io.fleetwave.events.node;

import static io.fleetwave.events.payload.Require.notNull;
import static io.fleetwave.events.payload.Require.positive;

import java.util.List;

/**
 * The agent verified a spec and starts applying it with this plan (empty when already converged).
 */
public record SpecAccepted(long generation, List<PlannedStep> steps) implements NodeEvent {
  public SpecAccepted {
    positive(generation, "generation");
    notNull(steps, "steps");
    steps = List.copyOf(steps);
  }
}
