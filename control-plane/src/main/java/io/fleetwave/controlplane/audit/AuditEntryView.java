package io.fleetwave.controlplane.audit;

import java.time.Instant;

/** An audit log entry as the API shows it. */
public record AuditEntryView(
    long id, Instant at, String actor, String action, String target, int status, String outcome) {

  static AuditEntryView of(AuditEntry entry) {
    return new AuditEntryView(
        entry.id, entry.at, entry.actor, entry.action, entry.target, entry.status, entry.outcome);
  }
}
