package io.fleetwave.core.rollout.plan;

/** A targeted node left out of the plan, with the reason and the details that explain it. */
public record ExcludedNode(String node, ExclusionReason reason, String detail) {}
