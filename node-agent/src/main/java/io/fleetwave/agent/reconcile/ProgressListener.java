package io.fleetwave.agent.reconcile;

import io.fleetwave.events.node.NodeEvent;

/**
 * Receives the executor's progress events (StepStarted, StepSucceeded, StepFailed, GateHeld,
 * GateReleased, SpecApplied) in order, on the thread that runs the plan. Typically the agent's
 * event publisher; must not block.
 */
@FunctionalInterface
public interface ProgressListener {
  void on(NodeEvent event);
}
