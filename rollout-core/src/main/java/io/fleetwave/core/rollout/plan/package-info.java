/**
 * The rollout planner: validates a rollout spec and plans waves, per-node changes and capacity
 * impact from a fleet snapshot. Pure (ArchitectureTest).
 */
package io.fleetwave.core.rollout.plan;
