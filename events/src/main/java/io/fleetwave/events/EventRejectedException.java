package io.fleetwave.events;

import java.io.Serial;

/** An event that cannot be accepted, with a reason fit for a dead-letter record or a log line. */
public class EventRejectedException extends Exception {
  @Serial private static final long serialVersionUID = 1L;

  public EventRejectedException(String reason) {
    super(reason);
  }

  public EventRejectedException(String reason, Throwable cause) {
    super(reason, cause);
  }
}
