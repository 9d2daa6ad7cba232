package io.fleetwave.agent.desired;

import io.fleetwave.events.node.NodeEvent;

/**
 * What following the desired spec needs of the node's running agent ({@code NodeAgent}): who it is,
 * its run's epoch, and its events. A port, so this package does not reach back into the agent's
 * root package that wires it.
 */
public interface AgentPort {
  String nodeName();

  long epoch();

  /** Whether the agent's run is still going (its events still go out). */
  boolean running();

  /**
   * Publishes one event of this run in its (epoch, seq) order.
   *
   * @throws AgentHaltedException when the run has stopped: a dead agent says nothing more
   */
  void publish(NodeEvent event);

  /** Publishes the inventory now if it changed since the last report (after a GPU step). */
  void reportInventory();

  /** Publishes the node's facts and its inventory again (the Reprobe command). */
  void reprobe();
}
