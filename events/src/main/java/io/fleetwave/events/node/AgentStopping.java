package io.fleetwave.events.node;

import io.fleetwave.events.payload.Require;

/** The agent's last word before an orderly stop. */
public record AgentStopping(String reason) implements NodeEvent {
  public AgentStopping {
    Require.notBlank(reason, "reason");
  }
}
