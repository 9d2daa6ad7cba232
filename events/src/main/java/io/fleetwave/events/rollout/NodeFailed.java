package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNegative;
import static io.fleetwave.events.payload.Require.notNull;
import static io.fleetwave.events.payload.Require.positive;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The node failed: the agent refused the spec, a step failed, it timed out, it could not be handed
 * its change or taken out of service, or it turned unhealthy during the soak. It counts against the
 * failure thresholds and frees its slot. v2: the cause is typed (v1 carried it as text only).
 */
public record NodeFailed(int wave, String node, Phase phase, FailureCause cause, long elapsedMillis)
    implements RolloutEvent {
  public NodeFailed {
    positive(wave, "wave");
    notBlank(node, "node");
    notNull(phase, "phase");
    notNull(cause, "cause");
    notNegative(elapsedMillis, "elapsedMillis");
  }

  /** The cause in words; also written (not read) for readers of the event's JSON. */
  @JsonProperty(value = "reason", access = JsonProperty.Access.READ_ONLY)
  public String reason() {
    return cause.describe();
  }
}
