package io.fleetwave.events.rollout;

import static io.fleetwave.events.node.Require.notBlank;

/**
 * No node starts until it is resumed; nodes in flight still finish.
 *
 * @param reason a failure threshold crossed (naming the nodes) or an operator's request
 */
public record RolloutPaused(String reason) implements RolloutEvent {
  public RolloutPaused {
    notBlank(reason, "reason");
  }
}
