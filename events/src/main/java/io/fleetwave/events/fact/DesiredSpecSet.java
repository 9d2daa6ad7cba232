package io.fleetwave.events.fact;

import static io.fleetwave.events.payload.Require.notNull;

import io.fleetwave.events.spec.NodeSpec;
import java.time.Instant;

/**
 * The subject node's desired spec was set, at its generation: what a rebuilt control plane numbers
 * the next spec from, so it never publishes a generation the agent has already seen (the agent
 * would refuse it as a replay, or apply an older spec as new).
 *
 * @param actor who set it (the token subject), or null for a rollout's spec
 */
public record DesiredSpecSet(NodeSpec spec, String actor, Instant at) implements ControlFact {
  public DesiredSpecSet {
    notNull(spec, "spec");
    notNull(at, "at");
  }
}
