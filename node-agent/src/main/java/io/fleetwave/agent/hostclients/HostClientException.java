package io.fleetwave.agent.hostclients;

import java.io.Serial;

/** A host service could not be stopped or started; the message names the unit and why. */
public class HostClientException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public HostClientException(String message) {
    super(message);
  }
}
