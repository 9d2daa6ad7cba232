package io.fleetwave.controlplane.rollout.drain;

/** A node could not be taken out of service; the message is the reason the node fails with. */
public class DrainException extends RuntimeException {
  public DrainException(String message) {
    super(message);
  }

  public DrainException(String message, Throwable cause) {
    super(message, cause);
  }
}
