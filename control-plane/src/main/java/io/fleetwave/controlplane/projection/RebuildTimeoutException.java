package io.fleetwave.controlplane.projection;

import java.io.Serial;

/** A rebuild that did not finish within its time bound; the message says at which stage. */
public class RebuildTimeoutException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public RebuildTimeoutException(String message) {
    super(message);
  }
}
