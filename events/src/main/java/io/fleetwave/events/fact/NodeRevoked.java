package io.fleetwave.events.fact;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNull;

import java.time.Instant;

/**
 * The subject node was revoked: every key it enrolled so far, and every later enrolment for it,
 * until a {@link NodeReadmitted}.
 *
 * @param revokedBy the administrator (token subject)
 */
public record NodeRevoked(Instant revokedAt, String revokedBy) implements ControlFact {
  public NodeRevoked {
    notNull(revokedAt, "revokedAt");
    notBlank(revokedBy, "revokedBy");
  }
}
