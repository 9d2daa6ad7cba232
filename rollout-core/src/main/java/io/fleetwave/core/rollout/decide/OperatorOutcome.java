package io.fleetwave.core.rollout.decide;

import java.util.UUID;

/** The engine's answer to an operator request, stored with the request and read by the API. */
public sealed interface OperatorOutcome {
  UUID requestId();

  /** The stored form (column {@code rollout_requests.outcome}). */
  String wire();

  /** The request became the events decided with it. */
  record Done(UUID requestId) implements OperatorOutcome {
    @Override
    public String wire() {
      return "done";
    }
  }

  /** The request does not apply to the rollout as it stands. */
  record Refused(UUID requestId, String reason) implements OperatorOutcome {
    @Override
    public String wire() {
      return PREFIX + reason;
    }
  }

  String PREFIX = "refused: ";

  /** Reads a stored outcome back; null while the engine has not answered. */
  static OperatorOutcome read(UUID requestId, String wire) {
    if (wire == null) {
      return null;
    }
    return wire.startsWith(PREFIX)
        ? new Refused(requestId, wire.substring(PREFIX.length()))
        : new Done(requestId);
  }
}
