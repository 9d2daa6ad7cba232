/**
 * The rollout engine: the pure decider (RolloutDecider over RolloutRun) and the leader that folds
 * fleet.rollout-events, observes node results and carries out decisions.
 */
package io.fleetwave.controlplane.rollout.engine;
