package io.fleetwave.core.rollout.plan;

/** What planning decided for one targeted node. */
sealed interface NodeOutcome {
  record Planned(NodePlan plan) implements NodeOutcome {}

  record Excluded(ExcludedNode excluded) implements NodeOutcome {}
}
