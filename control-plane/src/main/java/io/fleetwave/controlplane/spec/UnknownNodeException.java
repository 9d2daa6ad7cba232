package io.fleetwave.controlplane.spec;

/** The fleet projection has no node of this name. */
public class UnknownNodeException extends RuntimeException {
  private final String node;

  public UnknownNodeException(String node) {
    super("no node named '" + node + "'");
    this.node = node;
  }

  public String node() {
    return node;
  }
}
