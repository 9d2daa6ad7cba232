package io.fleetwave.controlplane.identity;

import java.io.Serial;
import java.time.Duration;

/**
 * Too many enrolment attempts from one source or for one node: answered 429 with Retry-After.
 *
 * @see EnrolmentRateLimit
 */
public class EnrolmentThrottledException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final transient Duration retryAfter;
  private final boolean first;

  public EnrolmentThrottledException(String reason, Duration retryAfter, boolean first) {
    super(reason);
    this.retryAfter = retryAfter;
    this.first = first;
  }

  /** How long until the next attempt may be made. */
  public Duration retryAfter() {
    return retryAfter;
  }

  /** Whether this is the first refusal since an attempt was last allowed (the one to log). */
  public boolean first() {
    return first;
  }
}
