package io.fleetwave.controlplane.audit;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One row of the audit log: who asked for which change, when, and what came of it. */
@Entity
@Table(name = "audit_log")
public class AuditEntry extends PanacheEntityBase {
  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  public Long id;

  @Column(nullable = false)
  public Instant at;

  /** The token's subject. */
  @Column(nullable = false)
  public String actor;

  /** The operation: method and path template, e.g. {@code POST /api/v1/rollouts/{id}/{action}}. */
  @Column(nullable = false)
  public String action;

  /** The request itself: path and query, e.g. {@code /api/v1/rollouts/3f../abort?reason=bad}. */
  @Column(nullable = false)
  public String target;

  /** The HTTP status answered. */
  @Column(nullable = false)
  public int status;

  /** "accepted", or the problem's detail when it was refused or failed. */
  @Column(nullable = false)
  public String outcome;
}
