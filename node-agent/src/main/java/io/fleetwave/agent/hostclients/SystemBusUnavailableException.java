package io.fleetwave.agent.hostclients;

import java.io.Serial;

/** The system bus (and so systemd) could not be reached within its bound, or refused us. */
public class SystemBusUnavailableException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public SystemBusUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
