package io.fleetwave.agent.reset;

import java.time.Duration;

/**
 * How far a reset may go on this node.
 *
 * @param rebootAllowed whether a node reboot may stand in for an impossible targeted reset
 * @param commandTimeout bound on nvidia-smi
 */
public record ResetPolicy(boolean rebootAllowed, Duration commandTimeout) {
  public static ResetPolicy targetedOnly() {
    return new ResetPolicy(false, Duration.ofSeconds(60));
  }
}
