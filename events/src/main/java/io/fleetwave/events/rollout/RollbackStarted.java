package io.fleetwave.events.rollout;

import static io.fleetwave.events.node.Require.notBlank;

/**
 * Every node the rollout touched goes back to its restore point, newest wave first, at most
 * maxUnavailable at a time.
 */
public record RollbackStarted(String reason) implements RolloutEvent {
  public RollbackStarted {
    notBlank(reason, "reason");
  }
}
