/** Reads the fleet from the projection and hands it to the planner. */
package io.fleetwave.controlplane.rollout.fleet;
