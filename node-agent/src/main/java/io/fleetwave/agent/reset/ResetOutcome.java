package io.fleetwave.agent.reset;

/** What a reset request ended in. */
public sealed interface ResetOutcome {

  /** The GPU was reset by {@code method} (e.g. {@code nvidia-smi -r -i 0000:3b:00.0}). */
  record Reset(String method) implements ResetOutcome {}

  /** Not reset; {@code holder} names what blocks it, where something does (else null). */
  record Refused(String reason, String holder) implements ResetOutcome {}

  /** The targeted reset was impossible and the node's policy allowed a reboot, which started. */
  record Rebooting(String reason) implements ResetOutcome {}
}
