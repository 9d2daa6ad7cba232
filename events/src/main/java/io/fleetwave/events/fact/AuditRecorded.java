package io.fleetwave.events.fact;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNull;

import java.time.Instant;

/**
 * One entry of the audit log: who asked for which change, when, and what came of it (an API change
 * request, an admin operation before it runs, an enrolment attempt). The subject is {@link
 * #SUBJECT}.
 *
 * @param actor the token's subject, or the enrolment's credential (never a secret)
 * @param action the operation, e.g. {@code POST /api/v1/rollouts/{id}/{action}}
 * @param target the request itself (path and query)
 * @param status the HTTP status answered, 0 for an admin operation recorded before it runs
 * @param outcome "accepted", "requested", or the problem's detail
 */
public record AuditRecorded(
    Instant at, String actor, String action, String target, int status, String outcome)
    implements ControlFact {
  /** The subject (and record key) of every audit entry. */
  public static final String SUBJECT = "audit";

  public AuditRecorded {
    notNull(at, "at");
    notBlank(actor, "actor");
    notBlank(action, "action");
    notBlank(target, "target");
    notBlank(outcome, "outcome");
  }
}
