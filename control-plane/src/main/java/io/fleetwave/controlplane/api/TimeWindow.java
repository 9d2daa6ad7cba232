package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.problem.ProblemException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * A window of time given as {@code since} and {@code until}, RFC 3339 instants (an offset is
 * allowed: {@code 2026-12-05T03:12:00+01:00}): {@code until} defaults to now and {@code since} to
 * {@link #DEFAULT_LENGTH} before {@code until}. A value that is not an instant is a 400 naming the
 * parameter; a window that ends before it starts is a 422.
 *
 * @param since inclusive
 * @param until exclusive
 */
public record TimeWindow(Instant since, Instant until) {
  public static final Duration DEFAULT_LENGTH = Duration.ofHours(24);

  public static TimeWindow parse(String since, String until, Clock clock) {
    Instant end = InstantParameter.parse("until", until);
    Instant to = end == null ? clock.instant() : end;
    Instant start = InstantParameter.parse("since", since);
    Instant from = start == null ? to.minus(DEFAULT_LENGTH) : start;
    if (from.isAfter(to)) {
      throw new ProblemException(
              422,
              "bad-window",
              "Invalid time window",
              "query parameter 'since' ("
                  + from
                  + ") is after 'until' ("
                  + to
                  + "): the window would be empty",
              java.util.List.of())
          .with("parameter", "since");
    }
    return new TimeWindow(from, to);
  }
}
