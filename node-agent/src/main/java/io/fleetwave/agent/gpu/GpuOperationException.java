package io.fleetwave.agent.gpu;

import java.io.Serial;

/**
 * A GPU operation the hardware (or driver) refused. The message always names the GPU and the
 * operation; {@link #holder()} names what blocks it, where something does.
 */
public class GpuOperationException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final int gpu;
  private final String holder;

  public GpuOperationException(int gpu, String operation, String reason) {
    this(gpu, operation, reason, null, null);
  }

  public GpuOperationException(
      int gpu, String operation, String reason, String holder, Throwable cause) {
    super("GPU " + gpu + ": " + operation + " failed: " + reason, cause);
    this.gpu = gpu;
    this.holder = holder;
  }

  public int gpu() {
    return gpu;
  }

  /** What holds the GPU and blocks the operation (a process, a client, "VFs enabled"), or null. */
  public String holder() {
    return holder;
  }
}
