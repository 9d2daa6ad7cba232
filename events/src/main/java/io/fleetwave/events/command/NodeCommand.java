package io.fleetwave.events.command;

import io.fleetwave.events.payload.FleetEvent;
import java.time.Instant;

/**
 * Everything the control plane sends to one agent: the desired spec on {@code fleet.node-desired}
 * (compacted) and one-shot commands on {@code fleet.node-commands}. Always carried signed in a
 * {@link io.fleetwave.events.CommandEnvelope}.
 *
 * <p>{@link #generation()} is what replay protection compares: for {@link ApplyNodeSpec} it is the
 * spec generation; for one-shot commands it is a per-node command counter kept by the control plane
 * (a nonce that only grows), compared with the last one-shot command the agent accepted.
 */
public sealed interface NodeCommand extends FleetEvent permits ApplyNodeSpec, ResetGpu, Reprobe {
  long generation();

  Instant issuedAt();

  /** When the command stops being valid, or null for one that is valid until superseded. */
  Instant expiresAt();
}
