package io.fleetwave.events.fact;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNull;

import java.time.Instant;

/**
 * The subject node was admitted again: it may enroll a new key. Its old keys stay revoked.
 *
 * @param revokedAt when the revocation it ends was made
 * @param revokedBy who made that revocation
 */
public record NodeReadmitted(Instant revokedAt, String revokedBy) implements ControlFact {
  public NodeReadmitted {
    notNull(revokedAt, "revokedAt");
    notBlank(revokedBy, "revokedBy");
  }
}
