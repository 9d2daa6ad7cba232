package io.fleetwave.controlplane.identity;

import java.time.Instant;

/** A node's key, enrolled: what the agent is told and the node_keys row records. */
public record Enrolled(String node, String keyId, String credential, Instant enrolledAt) {}
