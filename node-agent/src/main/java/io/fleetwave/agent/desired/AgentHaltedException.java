package io.fleetwave.agent.desired;

import java.io.Serial;

/**
 * The agent run this work belongs to has stopped (crashed, restarted or stopped in order): nothing
 * more may be published or done on its behalf. Thrown to abandon a reconcile mid-plan.
 */
public class AgentHaltedException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public AgentHaltedException(String nodeName, long epoch) {
    super("agent of " + nodeName + " (epoch " + epoch + ") is not running");
  }
}
