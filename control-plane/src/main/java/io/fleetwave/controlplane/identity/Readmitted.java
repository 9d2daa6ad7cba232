package io.fleetwave.controlplane.identity;

import java.time.Instant;

/**
 * A revoked node admitted again: it may enroll a new key (its old keys stay revoked).
 *
 * @param revokedAt when the revocation it ended was made
 * @param revokedBy who made it
 */
public record Readmitted(String node, Instant revokedAt, String revokedBy) {}
