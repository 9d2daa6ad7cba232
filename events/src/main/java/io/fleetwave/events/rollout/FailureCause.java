package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNegative;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * Why a node failed in a rollout, as a type: recorded in {@link NodeFailed} and rendered in one
 * place ({@link #describe}), whether the engine learnt it from the head of fleet.node-events or
 * from the projection.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
  @JsonSubTypes.Type(value = FailureCause.AgentRefused.class, name = "agent-refused"),
  @JsonSubTypes.Type(value = FailureCause.StepFailed.class, name = "step-failed"),
  @JsonSubTypes.Type(value = FailureCause.TimedOut.class, name = "timed-out"),
  @JsonSubTypes.Type(value = FailureCause.UnhealthyAfterSoak.class, name = "unhealthy-after-soak"),
  @JsonSubTypes.Type(value = FailureCause.HandOverFailed.class, name = "hand-over-failed"),
  @JsonSubTypes.Type(value = FailureCause.NotTakenOutOfService.class, name = "not-taken-out"),
  @JsonSubTypes.Type(value = FailureCause.Revoked.class, name = "revoked"),
  @JsonSubTypes.Type(value = FailureCause.Unclassified.class, name = "unclassified")
})
public sealed interface FailureCause {

  /** The cause in words, for the API, the CLI and the thresholds' reasons. */
  default String describe() {
    return switch (this) {
      case AgentRefused c ->
          "the agent refused generation " + c.generation() + " (" + c.code() + "): " + c.reason();
      case StepFailed c ->
          c.step()
              + " failed: "
              + c.reason()
              + (c.holder() == null ? "" : " (held by " + c.holder() + ")");
      case TimedOut c -> "no result within " + c.limitSeconds() + " s: " + c.unmet();
      case UnhealthyAfterSoak c ->
          "unhealthy after the " + c.soakSeconds() + " s soak: " + c.health();
      case HandOverFailed c -> c.reason();
      case NotTakenOutOfService c -> c.reason();
      case Revoked c -> NodeSkipped.REVOKED;
      case Unclassified c -> c.text();
    };
  }

  /** The agent refused the spec at this generation (code and reason as it reported them). */
  record AgentRefused(long generation, String code, String reason) implements FailureCause {
    public AgentRefused {
      notNegative(generation, "generation");
    }
  }

  /** A step of the agent's reconcile failed; {@code holder} names what blocked it, if anything. */
  record StepFailed(String step, String reason, String holder) implements FailureCause {}

  /**
   * No result within the node's limit (its timeout, plus the drain's bound while it drains).
   *
   * @param unmet what the node still lacked when the limit passed
   */
  record TimedOut(long limitSeconds, String unmet) implements FailureCause {
    public TimedOut {
      notNegative(limitSeconds, "limitSeconds");
      notBlank(unmet, "unmet");
    }
  }

  /** The node succeeded but was no longer healthy when its wave's soak ended. */
  record UnhealthyAfterSoak(long soakSeconds, String health) implements FailureCause {
    public UnhealthyAfterSoak {
      notNegative(soakSeconds, "soakSeconds");
      notBlank(health, "health");
    }
  }

  /** The spec or the driver request could not be handed over (published, accepted, sent). */
  record HandOverFailed(String reason) implements FailureCause {
    public HandOverFailed {
      notBlank(reason, "reason");
    }
  }

  /** The node could not be taken out of service (the drain failed or passed its bound). */
  record NotTakenOutOfService(String reason) implements FailureCause {
    public NotTakenOutOfService {
      notBlank(reason, "reason");
    }
  }

  /**
   * The node was revoked while the rollout had it in flight: whatever it reports is no longer
   * trusted, so its result never counts as a success.
   */
  record Revoked() implements FailureCause {}

  /** A cause recorded only in words: failures logged before causes were typed (NodeFailed v1). */
  record Unclassified(String text) implements FailureCause {
    public Unclassified {
      notBlank(text, "text");
    }
  }
}
