package io.fleetwave.controlplane.spec;

import java.io.Serial;

/** Kafka did not acknowledge a spec or command within its bound; the caller may try again. */
public class BrokerUnavailableException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public BrokerUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
