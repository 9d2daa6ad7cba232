package io.fleetwave.core.rollout.decide;

/** Where a node stands in one phase of a rollout. */
public enum NodeState {
  PENDING("pending"),
  IN_FLIGHT("in-flight"),
  SUCCEEDED("succeeded"),
  FAILED("failed"),
  /** Never started: left out while pending (revoked), see NodeSkipped. */
  SKIPPED("skipped");

  private final String wireName;

  NodeState(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  public boolean finished() {
    return this == SUCCEEDED || this == FAILED || this == SKIPPED;
  }
}
