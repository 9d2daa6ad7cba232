package io.fleetwave.simulator.fleet;

/**
 * A fleet file that cannot be used; the message names the file, the line or node group, the field.
 */
public class InvalidFleetFileException extends IllegalArgumentException {
  public InvalidFleetFileException(String message) {
    super(message);
  }

  public InvalidFleetFileException(String message, Throwable cause) {
    super(message, cause);
  }
}
