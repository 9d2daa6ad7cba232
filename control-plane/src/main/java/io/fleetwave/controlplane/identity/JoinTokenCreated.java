package io.fleetwave.controlplane.identity;

import java.time.Instant;

/**
 * A new join token, shown once: only its id and the hash of its secret are stored.
 *
 * @param node the only node it may enroll
 */
public record JoinTokenCreated(String token, String id, String node, Instant expiresAt) {}
