package io.fleetwave.cli;

/** The server could not be reached or did not answer in time; the message names it. */
public final class UnreachableException extends RuntimeException {
  public UnreachableException(String message, Throwable cause) {
    super(message, cause);
  }
}
