package io.fleetwave.controlplane.spec;

/**
 * A rollout's spec for one node, to be published as exactly {@code generation} (the generation its
 * NodeStarted event recorded).
 */
public record RolloutSpecRequest(String node, SpecRequest request, long generation) {}
