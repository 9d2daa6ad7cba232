package io.fleetwave.events.node;

/** The agent's last word before an orderly stop. */
public record AgentStopping(String reason) implements NodeEvent {
  public AgentStopping {
    Require.notBlank(reason, "reason");
  }
}
