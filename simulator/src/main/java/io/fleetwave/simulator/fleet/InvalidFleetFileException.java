package io.fleetwave.simulator.fleet;

import java.io.Serial;

/**
 * A fleet file that cannot be used; the message names the file, the line or node group, the field.
 */
public class InvalidFleetFileException extends IllegalArgumentException {
  @Serial private static final long serialVersionUID = 1L;

  public InvalidFleetFileException(String message) {
    super(message);
  }

  public InvalidFleetFileException(String message, Throwable cause) {
    super(message, cause);
  }
}
