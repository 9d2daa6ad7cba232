package io.fleetwave.agent.identity;

import java.io.Serial;

/**
 * The enrolment cannot succeed: the control plane refused it (the credential, the key or the name),
 * or it presented a certificate this agent does not trust. No retry helps.
 */
public class EnrolmentRefusedException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public EnrolmentRefusedException(String message) {
    super(message);
  }
}
