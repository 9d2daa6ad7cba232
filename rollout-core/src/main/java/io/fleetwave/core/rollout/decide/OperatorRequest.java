package io.fleetwave.core.rollout.decide;

import io.fleetwave.events.json.WireNamed;
import java.util.UUID;

/**
 * An operator's request on a rollout, waiting for the engine (table rollout_requests, a projection
 * of the OperatorRequested facts).
 *
 * @param id the request's id, recorded with it, so the same after a database is rebuilt
 * @param actor who asked (the token subject), recorded in the event the request becomes
 */
public record OperatorRequest(UUID id, Action action, String reason, String actor) {

  @WireNamed.Called("operator request")
  public enum Action implements WireNamed {
    PAUSE,
    RESUME,
    ABORT,
    ROLLBACK,
    PROMOTE;
  }
}
