package io.fleetwave.events.rollout;

/**
 * Nodes start again. Failures so far are accepted: the thresholds count failures after this.
 *
 * @param reason why, as the operator said it (may be null)
 */
public record RolloutResumed(String reason) implements RolloutEvent {}
