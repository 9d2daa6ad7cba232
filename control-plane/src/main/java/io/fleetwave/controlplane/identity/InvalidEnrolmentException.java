package io.fleetwave.controlplane.identity;

import java.io.Serial;

/** An enrolment request that is malformed (a key that is not Ed25519, a bad node name...). */
public class InvalidEnrolmentException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public InvalidEnrolmentException(String reason) {
    super(reason);
  }
}
