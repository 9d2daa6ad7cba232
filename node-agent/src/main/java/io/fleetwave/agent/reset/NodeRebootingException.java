package io.fleetwave.agent.reset;

import io.fleetwave.agent.gpu.GpuOperationException;
import java.io.Serial;

/**
 * A GPU reset that became a node reboot (allowed by policy): the agent reports the node as
 * "rebooting" and re-establishes the desired state after boot.
 */
public class NodeRebootingException extends GpuOperationException {
  @Serial private static final long serialVersionUID = 1L;

  public NodeRebootingException(int gpu, String reason) {
    super(gpu, "resetGpu", "rebooting: " + reason);
  }
}
