/**
 * What every event and command record is ({@link io.fleetwave.events.payload.FleetEvent}) and the
 * field checks their constructors share. The bottom of the contract: the record packages (node,
 * rollout, fact, command, spec) build on it, and the envelopes and the type registry in {@code
 * io.fleetwave.events} on them, so no package here is in a cycle (ArchitectureTest).
 */
package io.fleetwave.events.payload;
