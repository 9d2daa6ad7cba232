package io.fleetwave.agent.nvml;

import java.io.Serial;

/**
 * An NVML call that did not return within its bound, or a call refused because an earlier one is
 * still stuck in the driver. Not an {@link NvmlException}: NVML returned no code, and nothing was
 * refused by the hardware; the driver did not answer.
 */
public final class NvmlHungException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final String function;

  NvmlHungException(String function, String message) {
    super(message);
    this.function = function;
  }

  /** The NVML function that is stuck (e.g. {@code nvmlDeviceGetMigMode}). */
  public String function() {
    return function;
  }
}
