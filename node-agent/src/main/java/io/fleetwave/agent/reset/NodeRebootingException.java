package io.fleetwave.agent.reset;

import io.fleetwave.agent.gpu.GpuOperationException;

/**
 * A GPU reset that became a node reboot (allowed by policy): the agent reports the node as
 * "rebooting" and re-establishes the desired state after boot.
 */
public class NodeRebootingException extends GpuOperationException {
  public NodeRebootingException(int gpu, String reason) {
    super(gpu, "resetGpu", "rebooting: " + reason);
  }
}
