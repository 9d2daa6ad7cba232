package io.fleetwave.agent;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * @param heartbeatInterval how often a Heartbeat goes out (and the inventory is re-checked)
 * @param source the CloudEvents source of this agent's events
 * @param clock time source for epochs and event times
 */
public record AgentSettings(Duration heartbeatInterval, URI source, Clock clock) {
  public AgentSettings {
    Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(clock, "clock");
    if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()) {
      throw new IllegalArgumentException(
          "heartbeatInterval must be positive: " + heartbeatInterval);
    }
  }

  public static AgentSettings of(Duration heartbeatInterval, URI source) {
    return new AgentSettings(heartbeatInterval, source, Clock.systemUTC());
  }
}
