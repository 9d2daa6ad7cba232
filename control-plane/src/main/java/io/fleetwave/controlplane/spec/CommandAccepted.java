package io.fleetwave.controlplane.spec;

import java.time.Instant;

/** The 202 answer of a one-shot action: the command's generation and expiry. */
public record CommandAccepted(
    String node, String command, int gpu, long generation, Instant expiresAt) {}
