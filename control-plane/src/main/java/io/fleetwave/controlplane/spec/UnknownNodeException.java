package io.fleetwave.controlplane.spec;

import java.io.Serial;

/** The fleet projection has no node of this name. */
public class UnknownNodeException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final String node;

  public UnknownNodeException(String node) {
    super("no node named '" + node + "'");
    this.node = node;
  }

  public String node() {
    return node;
  }
}
