package io.fleetwave.agent.reconcile;

import java.io.Serial;

/**
 * A spec this node cannot reach whatever it does (an unknown profile, a layout that does not fit,
 * VFs on a GPU without SR-IOV). The message names the GPU and the field; the agent reports it as
 * SpecRejected with code {@value #CODE} and changes nothing.
 */
public class UnplannableSpecException extends Exception {
  @Serial private static final long serialVersionUID = 1L;

  public static final String CODE = "unplannable";

  public UnplannableSpecException(String reason) {
    super(reason);
  }
}
