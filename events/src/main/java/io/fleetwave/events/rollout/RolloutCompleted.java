package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notNegative;

/**
 * Terminal: every wave ran ({@code rolledBack} false) or every touched node was rolled back.
 *
 * @param failed nodes that failed in the rollout's last phase
 */
public record RolloutCompleted(boolean rolledBack, int succeeded, int failed)
    implements RolloutEvent {
  public RolloutCompleted {
    notNegative(succeeded, "succeeded");
    notNegative(failed, "failed");
  }
}
