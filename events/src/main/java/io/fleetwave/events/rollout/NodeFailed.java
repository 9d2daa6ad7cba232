package io.fleetwave.events.rollout;

import static io.fleetwave.events.node.Require.notBlank;
import static io.fleetwave.events.node.Require.notNegative;
import static io.fleetwave.events.node.Require.notNull;
import static io.fleetwave.events.node.Require.positive;

/**
 * The node failed: the agent refused the spec, a step failed, it timed out, or it turned unhealthy
 * during the soak. It counts against the failure thresholds and frees its slot.
 */
public record NodeFailed(int wave, String node, Phase phase, String reason, long elapsedMillis)
    implements RolloutEvent {
  public NodeFailed {
    positive(wave, "wave");
    notBlank(node, "node");
    notNull(phase, "phase");
    notBlank(reason, "reason");
    notNegative(elapsedMillis, "elapsedMillis");
  }
}
