package io.fleetwave.agent.hostclients;

import java.io.Serial;

/** A D-Bus call that reached its service and was answered with an error (e.g. NoSuchUnit). */
public class SystemBusCallException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final String errorName;

  public SystemBusCallException(String what, String errorName, String message, Throwable cause) {
    super(what + " failed: " + errorName + ": " + message, cause);
    this.errorName = errorName;
  }

  /** The D-Bus error name, e.g. {@code org.freedesktop.systemd1.NoSuchUnit}. */
  public String errorName() {
    return errorName;
  }
}
