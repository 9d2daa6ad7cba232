package io.fleetwave.controlplane.identity;

/**
 * @param node the only node name the token may enroll (required)
 * @param lifetimeSeconds how long it is valid; absent for the configured default
 */
public record JoinTokenRequest(String node, Long lifetimeSeconds) {}
