package io.fleetwave.controlplane.identity;

import java.io.Serial;

/** A re-admission of a node that is not revoked: nothing to do, and the caller should know. */
public class NodeNotRevokedException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public NodeNotRevokedException(String node) {
    super("node '" + node + "' is not revoked: it may enroll without a re-admission");
  }
}
