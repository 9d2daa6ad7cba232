package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.positive;

/**
 * A node the rollout will not send its next spec, with the reason: the node was revoked (its
 * identity is no longer trusted). Either a pending node, never started (nothing was changed on it,
 * so nothing to roll back), or, while rolling back, a node whose forward change finished: it is not
 * sent the rollback spec and keeps its forward result. Final for the node in this rollout: neither
 * a success nor a failure (no threshold counts it).
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
