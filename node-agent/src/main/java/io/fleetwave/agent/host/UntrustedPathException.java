package io.fleetwave.agent.host;

import java.io.Serial;

/**
 * A library or binary the agent was to load or run lies where someone other than a trusted owner
 * could have put it or could replace it; the message names the path, its owner and its mode.
 */
public final class UntrustedPathException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public UntrustedPathException(String message) {
    super(message);
  }
}
