/**
 * The rollout decider, pure: a rollout's state folded from fleet.rollout-events (RolloutFold over
 * RolloutRun), the decider that turns that state, the clock, what the fleet shows and what effects
 * reported into the rollout events to append (RolloutDecider), and the loop that gathers, decides,
 * appends and folds (DecisionLoop) through ports the control plane's engine implements.
 */
package io.fleetwave.core.rollout.decide;
