package io.fleetwave.controlplane.audit;

import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageRequest;
import io.fleetwave.controlplane.problem.ProblemException;
import io.fleetwave.controlplane.security.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;

@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
@Path("/api/v1/audit")
@Produces(MediaType.APPLICATION_JSON)
public class AuditResource {
  private final AuditLog log;

  public AuditResource(AuditLog log) {
    this.log = log;
  }

  @GET
  @Operation(
      summary = "The audit log: every change request with its actor, time and outcome",
      description =
          "Newest first, paged. Each entry: actor (the token's subject), at, action (method and"
              + " path template), target (path and query), status and outcome ('accepted' or the"
              + " problem's detail).")
  public Uni<Page<AuditEntryView>> list(
      @Parameter(description = "only this actor (a token subject)") @QueryParam("actor")
          String actor,
      @Parameter(description = "only entries at or after this instant, e.g. 2026-11-30T16:00:00Z")
          @QueryParam("since")
          String since,
      @Parameter(description = "0-based page number (default 0)") @QueryParam("page") String page,
      @Parameter(description = "page size, 1..500 (default 50)") @QueryParam("size") String size) {
    PageRequest paging = PageRequest.parse(page, size);
    return log.list(blankToNull(actor), parseSince(since), paging);
  }

  private static String blankToNull(String text) {
    return text == null || text.isBlank() ? null : text.strip();
  }

  private static Instant parseSince(String since) {
    if (since == null || since.isBlank()) {
      return null;
    }
    try {
      return Instant.parse(since.strip());
    } catch (DateTimeParseException e) {
      throw ProblemException.badRequest(
          "bad-since",
          "Invalid since",
          "query parameter 'since' must be an instant like 2026-11-30T16:00:00Z, got '"
              + since
              + "'");
    }
  }
}
