package io.fleetwave.events.fact;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNull;

import java.time.Instant;
import java.util.UUID;

/**
 * The rollout engine answered an {@link OperatorRequested}: recorded after the events the request
 * became, so a rebuilt database holds the request as handled and the engine never handles it again.
 * The subject is the rollout's id.
 *
 * @param outcome "done", or "refused: " and the reason (the engine's OperatorOutcome, as stored)
 */
public record OperatorRequestHandled(UUID request, String outcome, Instant at)
    implements ControlFact {
  public OperatorRequestHandled {
    notNull(request, "request");
    notBlank(outcome, "outcome");
    notNull(at, "at");
  }
}
