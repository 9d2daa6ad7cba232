package io.fleetwave.events;

/** Marker for the payload of any event carried in an {@link Envelope}. */
public interface FleetEvent {}
