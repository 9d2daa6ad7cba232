package io.fleetwave.events.fact;

import static io.fleetwave.events.payload.Require.notNull;

import java.time.Instant;

/**
 * A one-shot command (ResetGpu, Reprobe) to the subject node took this generation, its nonce: a
 * rebuilt control plane numbers the next command above it, so no nonce is ever used twice.
 */
public record CommandGenerationUsed(long generation, Instant at) implements ControlFact {
  public CommandGenerationUsed {
    if (generation < 1) {
      throw new IllegalArgumentException(
          "field 'generation' must be at least 1, got " + generation);
    }
    notNull(at, "at");
  }
}
