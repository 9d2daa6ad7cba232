package io.fleetwave.agent.sriov;

/** An SR-IOV or vGPU change that was refused or failed; the message names the function and why. */
public class SriovException extends RuntimeException {
  public SriovException(String message) {
    super(message);
  }

  public SriovException(String message, Throwable cause) {
    super(message, cause);
  }
}
