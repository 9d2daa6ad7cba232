package io.fleetwave.core.rollout.decide;

import io.fleetwave.events.rollout.FailureCause;

/**
 * What the fleet shows of one node, from its agent's events (directly or through the projection).
 *
 * @param appliedGeneration the newest spec generation the agent reported applied
 * @param failedGeneration the generation of its newest refusal or failed step, 0 for none
 * @param failure why the agent failed at that generation ({@link FailureCause.AgentRefused} or
 *     {@link FailureCause.StepFailed}), null for none
 * @param driverVersion the driver the node reports
 * @param unhealthy why the node is not healthy (GPU health, not seen), or null when it is
 */
public record Observation(
    long appliedGeneration,
    long failedGeneration,
    FailureCause failure,
    String driverVersion,
    String unhealthy) {

  public static final Observation NONE = new Observation(0, 0, null, null, null);
}
