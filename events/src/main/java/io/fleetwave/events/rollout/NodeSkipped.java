package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.positive;

/**
 * A pending node the rollout will not start, with the reason: the node was revoked (its identity is
 * no longer trusted), so it is never sent the rollout's spec. Final for the node in this rollout:
 * it is neither a success nor a failure (no threshold counts it) and it is not rolled back, since
 * nothing was changed on it.
 *
 * @param reason why it is skipped: {@link #REVOKED}
 */
public record NodeSkipped(int wave, String node, String reason) implements RolloutEvent {
  /** The node was revoked before the rollout started it. */
  public static final String REVOKED = "revoked";

  public NodeSkipped {
    positive(wave, "wave");
    notBlank(node, "node");
    notBlank(reason, "reason");
  }
}
