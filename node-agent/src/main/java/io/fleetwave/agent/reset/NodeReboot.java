package io.fleetwave.agent.reset;

/**
 * Starts a node reboot (the WITH_REBOOT equivalent); only called where the node's policy allows.
 */
@FunctionalInterface
public interface NodeReboot {
  void reboot(String reason);
}
