package io.fleetwave.testfixtures.time;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A UTC clock that stands still until the test sets it, for code that takes a {@link Clock}: a test
 * moves time past a bound instead of sleeping through it.
 */
public final class ManualClock extends Clock {
  private volatile Instant now;

  public ManualClock(Instant start) {
    now = start;
  }

  public void set(Instant instant) {
    now = instant;
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneOffset getZone() {
    return ZoneOffset.UTC;
  }

  /** Refused: the code under test reads instants, and a test that needs a zone says which. */
  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("a ManualClock is UTC; asked for " + zone);
  }
}
