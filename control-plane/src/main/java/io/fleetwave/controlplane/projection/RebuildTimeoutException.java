package io.fleetwave.controlplane.projection;

/** A rebuild that did not finish within its time bound; the message says at which stage. */
public class RebuildTimeoutException extends RuntimeException {
  public RebuildTimeoutException(String message) {
    super(message);
  }
}
