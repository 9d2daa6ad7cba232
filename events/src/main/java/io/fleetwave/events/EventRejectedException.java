package io.fleetwave.events;

/** An event that cannot be accepted, with a reason fit for a dead-letter record or a log line. */
public class EventRejectedException extends Exception {
  public EventRejectedException(String reason) {
    super(reason);
  }

  public EventRejectedException(String reason, Throwable cause) {
    super(reason, cause);
  }
}
