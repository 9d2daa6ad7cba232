package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.problem.ProblemException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * A query parameter that names a moment: an RFC 3339 time, an offset allowed ({@code
 * 2026-12-05T03:12:00Z}, {@code 2026-12-05T04:12:00+01:00}). One parse and one problem ({@code
 * bad-time}, naming the parameter) for every such parameter of the API.
 */
public final class InstantParameter {
  private InstantParameter() {}

  /**
   * The moment given, or null when the parameter is absent or blank.
   *
   * @throws ProblemException 400 {@code bad-time} naming the parameter when it is not a time
   */
  public static Instant parse(String name, String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return Instant.parse(text.strip());
    } catch (DateTimeParseException e) {
      throw ProblemException.badRequest(
              "bad-time",
              "Invalid time",
              "query parameter '"
                  + name
                  + "' must be an RFC 3339 time like 2026-12-05T03:12:00Z, got '"
                  + text
                  + "'")
          .with("parameter", name);
    }
  }
}
