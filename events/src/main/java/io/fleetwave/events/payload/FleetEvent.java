package io.fleetwave.events.payload;

/**
 * Marker for the payload of any event carried in an {@link io.fleetwave.events.Envelope}: the node,
 * rollout, fact and command records implement it, and the type registry above them names each.
 */
public interface FleetEvent {}
