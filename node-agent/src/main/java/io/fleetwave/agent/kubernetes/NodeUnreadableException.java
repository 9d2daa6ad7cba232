package io.fleetwave.agent.kubernetes;

/** The Node object could not be read; the message says why (forbidden, unreachable, ...). */
public final class NodeUnreadableException extends RuntimeException {
  public NodeUnreadableException(String message, Throwable cause) {
    super(message, cause);
  }
}
