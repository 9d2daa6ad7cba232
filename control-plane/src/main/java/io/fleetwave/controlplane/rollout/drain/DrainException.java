package io.fleetwave.controlplane.rollout.drain;

import java.io.Serial;

/** A node could not be taken out of service; the message is the reason the node fails with. */
public class DrainException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public DrainException(String message) {
    super(message);
  }

  public DrainException(String message, Throwable cause) {
    super(message, cause);
  }
}
