package io.fleetwave.controlplane.projection;

/** A record of fleet.node-events that cannot be projected, with where it came from and why. */
public record Rejection(
    String topic, int partition, long offset, String key, byte[] value, String reason) {}
