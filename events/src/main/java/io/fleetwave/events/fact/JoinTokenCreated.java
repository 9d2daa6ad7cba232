package io.fleetwave.events.fact;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNull;

import java.time.Instant;

/**
 * An administrator created a one-time join token for the subject node. Only the SHA-256 of its
 * secret is recorded, as in the join_tokens table: the log never holds a usable token.
 *
 * @param id the token's id, the part before the dot ({@code [a-z0-9]{6}})
 * @param secretSha256 the SHA-256 of the secret, the part after the dot, as lower-case hex
 * @param createdBy the administrator (token subject)
 */
public record JoinTokenCreated(
    String id, String secretSha256, String createdBy, Instant createdAt, Instant expiresAt)
    implements ControlFact {
  public JoinTokenCreated {
    notBlank(id, "id");
    notBlank(secretSha256, "secretSha256");
    if (!secretSha256.matches("[0-9a-f]{64}")) {
      throw new IllegalArgumentException(
          "field 'secretSha256' must be 64 lower-case hex digits (a SHA-256), got "
              + secretSha256.length()
              + " characters");
    }
    notBlank(createdBy, "createdBy");
    notNull(createdAt, "createdAt");
    notNull(expiresAt, "expiresAt");
  }
}
