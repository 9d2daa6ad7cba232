package io.fleetwave.controlplane.identity;

import java.time.Instant;

/** A node revoked: when and by whom. Until an admin re-admits it, nothing enrolls it. */
public record NodeRevocation(String node, Instant revokedAt, String revokedBy) {}
