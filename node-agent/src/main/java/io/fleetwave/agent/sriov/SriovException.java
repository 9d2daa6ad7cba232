package io.fleetwave.agent.sriov;

import java.io.Serial;

/** An SR-IOV or vGPU change that was refused or failed; the message names the function and why. */
public class SriovException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public SriovException(String message) {
    super(message);
  }

  public SriovException(String message, Throwable cause) {
    super(message, cause);
  }
}
