package io.fleetwave.cli;

import java.io.Serial;

/** The server could not be reached or did not answer in time; the message names it. */
public final class UnreachableException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public UnreachableException(String message, Throwable cause) {
    super(message, cause);
  }
}
