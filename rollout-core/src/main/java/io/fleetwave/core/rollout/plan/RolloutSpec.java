package io.fleetwave.core.rollout.plan;

/**
 * A rollout request, as accepted by {@code POST /api/v1/rollouts} (JSON field names match).
 *
 * @param name a DNS-label style name, e.g. {@code h100-balanced}
 */
public record RolloutSpec(
    String name, RolloutTarget target, RolloutChange change, RolloutStrategy strategy) {}
