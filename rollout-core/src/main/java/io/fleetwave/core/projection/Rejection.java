package io.fleetwave.core.projection;

/** A record of fleet.node-events that cannot be projected, with where it came from and why. */
// The record's bytes as read: a carrier handed once to the dead-letter writer, never compared.
@SuppressWarnings("ArrayRecordComponent")
public record Rejection(
    String topic, int partition, long offset, String key, byte[] value, String reason) {}
