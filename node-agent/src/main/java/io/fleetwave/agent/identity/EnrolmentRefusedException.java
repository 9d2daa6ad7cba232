package io.fleetwave.agent.identity;

import java.io.Serial;

/**
 * The control plane refused the enrolment (the credential, the key or the name): no retry helps.
 */
public class EnrolmentRefusedException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public EnrolmentRefusedException(String message) {
    super(message);
  }
}
