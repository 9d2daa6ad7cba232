package io.fleetwave.agent.hostclients;

/** A host service could not be stopped or started; the message names the unit and why. */
public class HostClientException extends RuntimeException {
  public HostClientException(String message) {
    super(message);
  }
}
