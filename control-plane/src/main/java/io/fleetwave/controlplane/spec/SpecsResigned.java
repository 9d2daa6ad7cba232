package io.fleetwave.controlplane.spec;

/**
 * Every current desired spec was published again, signed with the key {@code kid}.
 *
 * @param kid the id of the key that signed them
 * @param specs how many were published
 */
public record SpecsResigned(String kid, int specs) {}
