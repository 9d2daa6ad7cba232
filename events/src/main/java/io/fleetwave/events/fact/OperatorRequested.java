package io.fleetwave.events.fact;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNull;

import java.time.Instant;
import java.util.Set;
import java.util.UUID;

/**
 * An operator asked the rollout engine to act on a rollout; recorded before the API queues it, so a
 * rebuilt database still holds every request the engine has not answered. The subject is the
 * rollout's id; the answer is an {@link OperatorRequestHandled} naming {@code request}.
 *
 * @param request the request's id: the engine's and the waiting API call's name for it, kept across
 *     a rebuild
 * @param action pause, resume, abort, rollback or promote
 * @param reason the operator's reason, or null
 * @param actor who asked (the token subject)
 */
public record OperatorRequested(
    UUID request, UUID rollout, String action, String reason, String actor, Instant at)
    implements ControlFact {
  /** The actions an operator can ask for (the engine's OperatorRequest.Action, by wire name). */
  public static final Set<String> ACTIONS =
      Set.of("pause", "resume", "abort", "rollback", "promote");

  public OperatorRequested {
    notNull(request, "request");
    notNull(rollout, "rollout");
    notBlank(action, "action");
    if (!ACTIONS.contains(action)) {
      throw new IllegalArgumentException(
          "field 'action' must be one of pause, resume, abort, rollback, promote, got '"
              + action
              + "'");
    }
    notBlank(actor, "actor");
    notNull(at, "at");
  }
}
