package io.fleetwave.controlplane.rollout.engine;

/**
 * What the fleet shows of one node, from its agent's events (directly or through the projection).
 *
 * @param appliedGeneration the newest spec generation the agent reported applied
 * @param failedGeneration the generation of its newest refusal or failed step, 0 for none
 * @param failure what the agent said about that failure
 * @param driverVersion the driver the node reports
 * @param unhealthy why the node is not healthy (GPU health, not seen), or null when it is
 */
public record Observation(
    long appliedGeneration,
    long failedGeneration,
    String failure,
    String driverVersion,
    String unhealthy) {

  public static final Observation NONE = new Observation(0, 0, null, null, null);
}
