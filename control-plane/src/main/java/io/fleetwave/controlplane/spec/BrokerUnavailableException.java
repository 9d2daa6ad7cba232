package io.fleetwave.controlplane.spec;

/** Kafka did not acknowledge a spec or command within its bound; the caller may try again. */
public class BrokerUnavailableException extends RuntimeException {
  public BrokerUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
