package io.fleetwave.controlplane.rollout.driver;

import java.io.Serial;

/** A driver change that could not be handed over; the message names the node and the executor. */
public final class DriverChangeException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final String executor;
  private final String node;

  public DriverChangeException(
      String executor, DriverChangeRequest request, String reason, Throwable cause) {
    super(
        "driver executor "
            + executor
            + " could not hand over the change of node "
            + request.node()
            + " to driver "
            + request.toVersion()
            + " (request "
            + request.id()
            + "): "
            + reason,
        cause);
    this.executor = executor;
    this.node = request.node();
  }

  public DriverChangeException(String executor, DriverChangeRequest request, String reason) {
    this(executor, request, reason, null);
  }

  public String executor() {
    return executor;
  }

  public String node() {
    return node;
  }
}
