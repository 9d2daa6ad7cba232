package io.fleetwave.agent.kubernetes;

import java.io.Serial;

/** The Node object could not be read; the message says why (forbidden, unreachable, ...). */
public final class NodeUnreadableException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public NodeUnreadableException(String message, Throwable cause) {
    super(message, cause);
  }
}
