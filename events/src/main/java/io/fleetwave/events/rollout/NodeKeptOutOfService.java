package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNull;

import java.util.List;

/**
 * A node that failed (or could not be put back) stays cordoned for somebody to look at; what the
 * change paused is undone all the same: the GPU Operator's operands run again and its MIG state
 * reads failed.
 *
 * @param restoredOperands the operands set back to their value before the change
 * @param reason what happened, naming the node and the cause
 */
public record NodeKeptOutOfService(
    String node, Phase phase, List<String> restoredOperands, String reason)
    implements RolloutEvent {
  public NodeKeptOutOfService {
    notBlank(node, "node");
    notNull(phase, "phase");
    restoredOperands = List.copyOf(notNull(restoredOperands, "restoredOperands"));
    notBlank(reason, "reason");
  }
}
