package io.fleetwave.events.node;

import static io.fleetwave.events.payload.Require.positive;

/** Every GPU of the node matches spec {@code generation}. */
public record SpecApplied(long generation) implements NodeEvent {
  public SpecApplied {
    positive(generation, "generation");
  }
}
