package io.fleetwave.controlplane.identity;

import java.io.Serial;

/** A node's bootstrap credential does not allow it to enroll: the reason, never the credential. */
public class EnrolmentRefusedException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public EnrolmentRefusedException(String reason) {
    super(reason);
  }
}
