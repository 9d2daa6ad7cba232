package io.fleetwave.events.command;

import static io.fleetwave.events.payload.Require.notNegative;
import static io.fleetwave.events.payload.Require.positive;

import java.time.Instant;

/** Reset one GPU alone (targeted reset), refused by the hardware while anything holds it. */
public record ResetGpu(int gpu, long generation, Instant issuedAt, Instant expiresAt)
    implements NodeCommand {
  public ResetGpu {
    notNegative(gpu, "gpu");
    positive(generation, "generation");
    Validity.check(issuedAt, expiresAt, true);
  }
}
