package io.fleetwave.events.node;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNegative;

/**
 * The device-plugin gate is held: device plugins must not (re)scan this node yet.
 *
 * @param generation the spec the node is converging to (0 before any spec is known)
 * @param reason why it is held, e.g. {@code booted} or the failed step
 */
public record GateHeld(long generation, String reason) implements NodeEvent {
  public GateHeld {
    notNegative(generation, "generation");
    notBlank(reason, "reason");
  }
}
