package io.fleetwave.controlplane.identity;

import io.fleetwave.controlplane.audit.store.AuditTrail;
import io.fleetwave.events.fact.AuditRecorded;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import java.time.Instant;
import org.jboss.logging.Logger;

/**
 * Every enrolment attempt in the log and in the audit log (GET /api/v1/audit), accepted or refused:
 * the credential as actor (its kind and subject: a join token's id, a service account; never the
 * secret), the node, the source address, the status and the outcome with its reason. An accepted
 * enrolment's entry is written in the transaction that stores the key, so no key is stored
 * unaudited; a refused one's afterwards, as the refusal changed nothing. Each entry is an audit
 * fact on fleet.control-facts first ({@link AuditTrail}).
 */
final class EnrolmentAudit {
  static final String ACTION = "POST /api/v1/nodes/{name}/enrolment";
  private static final Logger LOG = Logger.getLogger(EnrolmentAudit.class);
  private static final int MAX_TEXT = 2000;

  private EnrolmentAudit() {}

  /** One attempt: the node, where it came from, and its credential's kind and subject. */
  record Attempt(String node, String source, String credential, Instant at) {
    String target() {
      return clip("/api/v1/nodes/" + node + "/enrolment from " + source);
    }
  }

  static Uni<Void> accepted(AuditTrail audit, SqlClient tx, Attempt attempt, Enrolled enrolled) {
    // The node's Kafka user by name only: its password is in the answer and nowhere else.
    String outcome =
        "accepted: key "
            + enrolled.keyId()
            + (enrolled.kafka() == null ? "" : ", Kafka user " + enrolled.kafka().username());
    LOG.infof(
        "enrolment of node '%s' by %s from %s: %s",
        attempt.node(), enrolled.credential(), attempt.source(), outcome);
    return audit.append(tx, entry(attempt, enrolled.credential(), 201, outcome));
  }

  static Uni<Void> refused(AuditTrail audit, Attempt attempt, int status, String reason) {
    String outcome = (status < 500 ? "refused (" : "failed (") + status + "): " + reason;
    LOG.warnf(
        "enrolment of node '%s' by %s from %s: %s",
        attempt.node(), attempt.credential(), attempt.source(), outcome);
    return audit.append(entry(attempt, attempt.credential(), status, outcome));
  }

  private static AuditRecorded entry(Attempt attempt, String actor, int status, String outcome) {
    return new AuditRecorded(
        attempt.at(), clip(actor), ACTION, attempt.target(), status, clip(outcome));
  }

  private static String clip(String text) {
    return text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT - 1) + "…";
  }
}
