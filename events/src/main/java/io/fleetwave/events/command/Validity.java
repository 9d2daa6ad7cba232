package io.fleetwave.events.command;

import static io.fleetwave.events.payload.Require.notNull;

import java.time.Instant;

/** Shared checks of a command's validity window. */
final class Validity {
  private Validity() {}

  static void check(Instant issuedAt, Instant expiresAt, boolean expiryRequired) {
    notNull(issuedAt, "issuedAt");
    if (expiryRequired) {
      notNull(expiresAt, "expiresAt");
    }
    if (expiresAt != null && !expiresAt.isAfter(issuedAt)) {
      throw new IllegalArgumentException(
          "field 'expiresAt' (" + expiresAt + ") must be after 'issuedAt' (" + issuedAt + ")");
    }
  }
}
