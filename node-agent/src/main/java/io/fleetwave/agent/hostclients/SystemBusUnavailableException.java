package io.fleetwave.agent.hostclients;

/** The system bus (and so systemd) could not be reached within its bound, or refused us. */
public class SystemBusUnavailableException extends RuntimeException {
  public SystemBusUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
