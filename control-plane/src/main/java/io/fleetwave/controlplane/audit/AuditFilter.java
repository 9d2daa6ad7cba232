package io.fleetwave.controlplane.audit;

import io.fleetwave.controlplane.api.DatabaseUnavailableMapper;
import io.fleetwave.controlplane.api.DomainProblemMapper;
import io.fleetwave.controlplane.audit.store.AuditTrail;
import io.fleetwave.controlplane.facts.FactNotRecordedException;
import io.fleetwave.controlplane.problem.Problem;
import io.fleetwave.controlplane.security.CurrentActor;
import io.fleetwave.controlplane.security.Roles;
import io.fleetwave.events.fact.AuditRecorded;
import io.quarkus.vertx.VertxContextSupport;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * Records every change request the API answered (any method but GET, HEAD, OPTIONS, on a matched
 * endpoint) in the audit log: the token's subject, the time, the operation and the request's path
 * and query, the status and the outcome ("accepted", or the problem's detail). Refused requests of
 * a known caller (403, 409, 422...) are recorded too; a request without a valid token (401) has no
 * actor and is not.
 *
 * <p>An admin-only operation (MIG config import, projection rebuild, join tokens, revoking and
 * re-admitting a node, re-signing the specs) is recorded before it runs too: an entry with status 0
 * and outcome {@code requested}, and the operation runs only once that entry is stored. If it
 * cannot be stored the request is refused with 503 ({@code fact-not-recorded} when Kafka did not
 * take the entry's fact, {@code audit-unavailable} when PostgreSQL did not take its row), so no
 * admin operation takes effect unaudited (fail closed). The entry of the answer follows as for any
 * change; one that cannot be written then does not change the answer (the change has already
 * happened and its request entry stands) and is tried again in the background ({@link
 * #appendOrRetryLater}).
 */
public class AuditFilter {
  private static final Logger LOG = Logger.getLogger(AuditFilter.class);
  private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS");
  private static final Duration WRITE_BOUND = Duration.ofSeconds(10);

  /** How long an after-the-fact entry is tried again in the background (a broker outage). */
  private static final Duration RETRY_FOR = Duration.ofMinutes(10);

  private static final int MAX_TEXT = 2000;

  private final CurrentActor actor;
  private final AuditTrail log;
  private final Clock clock = Clock.systemUTC();

  public AuditFilter(CurrentActor actor, AuditTrail log) {
    this.actor = actor;
    this.log = log;
  }

  /** Records an admin-only operation before it runs; refuses it (503) if that cannot be done. */
  @ServerRequestFilter
  public Uni<Response> recordAdminRequest(ContainerRequestContext request, ResourceInfo resource) {
    if (READS.contains(request.getMethod()) || !adminOnly(resource)) {
      return Uni.createFrom().nullItem();
    }
    Uni<Response> recorded = adminRequestEntry(request, resource);
    if (Context.isOnEventLoopThread()) {
      return recorded;
    }
    // A blocking endpoint's worker thread: Hibernate Reactive runs on a Vert.x context only.
    try {
      return Uni.createFrom().item(VertxContextSupport.subscribeAndAwait(() -> recorded));
    } catch (Throwable e) {
      LOG.errorf(
          "admin operation %s refused: its audit entry could not be written: %s",
          target(request), e);
      return Uni.createFrom().item(auditUnavailable());
    }
  }

  private Uni<Response> adminRequestEntry(ContainerRequestContext request, ResourceInfo resource) {
    return actor
        .subjectInRole(Roles.ADMIN)
        .chain(
            subject -> {
              if (subject.isEmpty()) {
                // Not an admin: the role check refuses it, and the answer's entry records that.
                return Uni.createFrom().<Response>nullItem();
              }
              AuditRecorded entry = entry(request, resource, subject.get(), 0, "requested");
              return log.append(entry)
                  .ifNoItem()
                  .after(WRITE_BOUND)
                  .fail()
                  .replaceWith((Response) null)
                  .onFailure()
                  .recoverWithItem(
                      e -> {
                        LOG.errorf(
                            "admin operation %s %s refused: its audit entry could not be written:"
                                + " %s",
                            entry.action(), entry.target(), e);
                        return e instanceof FactNotRecordedException unrecorded
                            ? DomainProblemMapper.unrecorded(unrecorded)
                            : auditUnavailable();
                      });
            });
  }

  /**
   * Appends an after-the-fact entry within {@link #WRITE_BOUND}. One that Kafka or PostgreSQL does
   * not take then (an outage the control plane rides out) is appended again in the background, with
   * backoff, for up to {@link #RETRY_FOR}: the change was made already, so its entry must follow it
   * rather than be lost, and the answer must not wait for the outage to end. Only an entry still
   * not written after that is an error. Until then it is held in memory only (a crash loses it),
   * and an attempt that timed out but was taken after all leaves a second, equal entry.
   */
  private Uni<Void> appendOrRetryLater(AuditRecorded entry, String target) {
    return log.append(entry)
        .ifNoItem()
        .after(WRITE_BOUND)
        .fail()
        .onFailure()
        .recoverWithItem(
            e -> {
              LOG.warnf(
                  "audit entry for %s not written yet, trying again for up to %s: %s",
                  target, RETRY_FOR, e);
              Uni.createFrom()
                  .deferred(() -> log.append(entry))
                  .ifNoItem()
                  .after(WRITE_BOUND)
                  .fail()
                  .onFailure()
                  .retry()
                  .withBackOff(Duration.ofSeconds(1), Duration.ofSeconds(15))
                  .expireIn(RETRY_FOR.toMillis())
                  .subscribe()
                  .with(
                      written -> LOG.infof("audit entry for %s written on a later attempt", target),
                      lost ->
                          LOG.errorf(
                              "audit entry for %s not written within %s: %s",
                              target, RETRY_FOR, lost));
              return null;
            });
  }

  private AuditRecorded entry(
      ContainerRequestContext request,
      ResourceInfo resource,
      String subject,
      int status,
      String outcome) {
    return new AuditRecorded(
        clock.instant(),
        subject,
        request.getMethod() + " " + template(resource),
        clip(target(request)),
        status,
        clip(outcome));
  }

  private static Response auditUnavailable() {
    return Response.status(503)
        .type(Problem.MEDIA_TYPE)
        .header("Retry-After", DatabaseUnavailableMapper.RETRY_AFTER_S)
        .entity(
            new Problem(
                URI.create("https://fleetwave.io/problems/audit-unavailable"),
                "Service unavailable",
                503,
                "the audit log cannot be written, so admin operations are refused until it can"
                    + " (nothing was changed); try again shortly"))
        .build();
  }

  /** Whether only admins may call the operation (its roles, else its class's, are just admin). */
  static boolean adminOnly(ResourceInfo resource) {
    if (resource == null || resource.getResourceMethod() == null) {
      return false;
    }
    RolesAllowed roles = resource.getResourceMethod().getAnnotation(RolesAllowed.class);
    if (roles == null) {
      roles = resource.getResourceClass().getAnnotation(RolesAllowed.class);
    }
    return roles != null && Set.of(roles.value()).equals(Set.of(Roles.ADMIN));
  }

  @ServerResponseFilter
  public Uni<Void> record(
      ContainerRequestContext request, ContainerResponseContext response, ResourceInfo resource) {
    if (READS.contains(request.getMethod())
        || resource == null
        || resource.getResourceMethod() == null
        || response.getStatus() == 401) {
      return Uni.createFrom().voidItem();
    }
    Uni<Void> write =
        actor
            .subject()
            .chain(
                subject -> {
                  if (subject.isEmpty()) {
                    return Uni.createFrom().voidItem();
                  }
                  AuditRecorded entry =
                      entry(
                          request,
                          resource,
                          subject.get(),
                          response.getStatus(),
                          outcome(response));
                  // One line per change: with the node or rollout of its path in the MDC
                  // (logging/RequestLogContext), kept by the request's Vert.x context.
                  LOG.infof(
                      "%s %s by %s: %s",
                      entry.action(), entry.target(), entry.actor(), entry.outcome());
                  return appendOrRetryLater(entry, target(request));
                })
            .onFailure()
            .invoke(e -> LOG.errorf("audit entry for %s not written: %s", target(request), e))
            .onFailure()
            .recoverWithNull()
            .replaceWithVoid();
    if (Context.isOnEventLoopThread()) {
      return write;
    }
    // A blocking endpoint's worker thread: Hibernate Reactive runs on a Vert.x context only.
    try {
      VertxContextSupport.subscribeAndAwait(() -> write);
    } catch (Throwable e) {
      LOG.errorf("audit entry for %s not written: %s", target(request), e);
    }
    return Uni.createFrom().voidItem();
  }

  /** The operation's path template, as the API reference shows it ({action}, not its regex). */
  static String template(ResourceInfo resource) {
    Path type = resource.getResourceClass().getAnnotation(Path.class);
    Path method = resource.getResourceMethod().getAnnotation(Path.class);
    String path = (type == null ? "" : type.value()) + (method == null ? "" : method.value());
    return path.replaceAll("\\{\\s*(\\w+)\\s*:[^}]*}", "{$1}");
  }

  private static String target(ContainerRequestContext request) {
    String path = request.getUriInfo().getPath();
    String query = request.getUriInfo().getRequestUri().getRawQuery();
    return query == null ? path : path + "?" + query;
  }

  private static String outcome(ContainerResponseContext response) {
    int status = response.getStatus();
    if (status < 400) {
      return status == 202 ? "accepted (202)" : "accepted";
    }
    Object entity = response.getEntity();
    String detail = null;
    if (entity instanceof Problem problem) {
      detail = problem.detail();
    } else if (entity instanceof Map<?, ?> body && body.get("detail") != null) {
      detail = String.valueOf(body.get("detail"));
    }
    return "refused (" + status + ")" + (detail == null ? "" : ": " + detail);
  }

  private static String clip(String text) {
    return text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT - 1) + "…";
  }
}
