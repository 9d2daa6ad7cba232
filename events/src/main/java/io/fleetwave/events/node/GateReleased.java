package io.fleetwave.events.node;

import static io.fleetwave.events.payload.Require.positive;

/** The device-plugin gate is released: the node's GPUs match spec {@code generation}. */
public record GateReleased(long generation) implements NodeEvent {
  public GateReleased {
    positive(generation, "generation");
  }
}
