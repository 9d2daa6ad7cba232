package io.fleetwave.events.rollout;

import static io.fleetwave.events.node.Require.notBlank;

/**
 * The rollout stops for good and frees its nodes; nodes already sent their spec keep it. Terminal.
 */
public record RolloutAborted(String reason) implements RolloutEvent {
  public RolloutAborted {
    notBlank(reason, "reason");
  }
}
