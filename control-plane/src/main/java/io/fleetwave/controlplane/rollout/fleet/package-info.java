/** Reads the fleet from the read model and hands it to the planner. */
package io.fleetwave.controlplane.rollout.fleet;
