package io.fleetwave.controlplane.rollout.store;

import java.io.Serial;
import java.util.List;
import java.util.UUID;

/**
 * A new rollout plans nodes that an active rollout holds: {@link #nodes()} are the overlapping
 * nodes, sorted (all of them), {@link #rolloutId()} the active rollout holding the first of them.
 */
public final class RolloutConflictException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final transient List<String> nodes;
  private final UUID rolloutId;
  private final String rolloutName;

  public RolloutConflictException(List<String> nodes, UUID rolloutId, String rolloutName) {
    super(
        nodes.size()
            + " planned node(s) belong to active rollout "
            + rolloutName
            + " ("
            + rolloutId
            + ")");
    this.nodes = List.copyOf(nodes);
    this.rolloutId = rolloutId;
    this.rolloutName = rolloutName;
  }

  public List<String> nodes() {
    return nodes;
  }

  public UUID rolloutId() {
    return rolloutId;
  }

  public String rolloutName() {
    return rolloutName;
  }
}
