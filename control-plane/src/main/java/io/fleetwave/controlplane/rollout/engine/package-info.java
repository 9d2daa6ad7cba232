/**
 * The rollout engine: the leader that folds fleet.rollout-events, gathers what the pure decider
 * (rollout-core's {@code io.fleetwave.core.rollout.decide}) is given, appends its decisions and
 * carries out their effects.
 */
package io.fleetwave.controlplane.rollout.engine;
