package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNull;

import java.util.List;

/**
 * A node that succeeded is back in service: the operands paused for it run again, its MIG state
 * reads success, and it is uncordoned, unless someone else had cordoned it before the rollout.
 *
 * @param uncordoned whether Fleetwave uncordoned it (false: it stays cordoned, see the note)
 * @param restoredOperands the GPU Operator operands set back to their value before the change
 * @param note why it stays cordoned, or null
 */
public record NodeReturnedToService(
    String node, Phase phase, boolean uncordoned, List<String> restoredOperands, String note)
    implements RolloutEvent {
  public NodeReturnedToService {
    notBlank(node, "node");
    notNull(phase, "phase");
    restoredOperands = List.copyOf(notNull(restoredOperands, "restoredOperands"));
  }
}
