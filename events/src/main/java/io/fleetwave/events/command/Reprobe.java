package io.fleetwave.events.command;

import static io.fleetwave.events.payload.Require.positive;

import java.time.Instant;

/** Probe the host and the GPUs again and report them (NodeRegistered, GpuInventoryReported). */
public record Reprobe(long generation, Instant issuedAt, Instant expiresAt) implements NodeCommand {
  public Reprobe {
    positive(generation, "generation");
    Validity.check(issuedAt, expiresAt, true);
  }
}
