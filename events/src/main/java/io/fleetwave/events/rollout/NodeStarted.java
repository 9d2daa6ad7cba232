package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNull;
import static io.fleetwave.events.payload.Require.positive;

/**
 * A node was taken into the rollout: written before its desired spec is sent, so an engine that
 * resumes knows the spec generation to (re)send and to wait for, and never starts the node again.
 *
 * @param generation the desired-spec generation the node must reach
 * @param restore what a rollback restores; null in the rollback phase
 */
public record NodeStarted(int wave, String node, Phase phase, long generation, RestorePoint restore)
    implements RolloutEvent {
  public NodeStarted {
    positive(wave, "wave");
    notBlank(node, "node");
    notNull(phase, "phase");
    positive(generation, "generation");
    if (phase == Phase.FORWARD) {
      notNull(restore, "restore");
    }
  }
}
