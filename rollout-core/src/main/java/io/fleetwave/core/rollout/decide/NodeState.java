package io.fleetwave.core.rollout.decide;

import io.fleetwave.events.json.WireNamed;

/** Where a node stands in one phase of a rollout. */
public enum NodeState implements WireNamed {
  PENDING,
  IN_FLIGHT,
  SUCCEEDED,
  FAILED,
  /** Never started: left out while pending (revoked), see NodeSkipped. */
  SKIPPED;

  public boolean finished() {
    return this == SUCCEEDED || this == FAILED || this == SKIPPED;
  }
}
