package io.fleetwave.agent.desired;

import io.fleetwave.events.node.PlannedStep;

/**
 * Called on the reconcile thread right after a step succeeded and its StepSucceeded event was
 * published. Tests use it to crash a simulated agent after step k (in-process crash injection): if
 * the agent is no longer running when it returns, the rest of the plan is abandoned, as a killed
 * process would abandon it.
 */
@FunctionalInterface
public interface StepInterceptor {
  StepInterceptor NONE = (node, step) -> {};

  void afterStep(String node, PlannedStep step);
}
