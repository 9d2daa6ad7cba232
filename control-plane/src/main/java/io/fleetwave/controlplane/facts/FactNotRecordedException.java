package io.fleetwave.controlplane.facts;

import java.io.Serial;

/**
 * Kafka did not acknowledge a fact on fleet.control-facts: the request that made it fails and
 * changes nothing, and the caller may try again.
 */
public class FactNotRecordedException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public FactNotRecordedException(String message, Throwable cause) {
    super(message, cause);
  }
}
