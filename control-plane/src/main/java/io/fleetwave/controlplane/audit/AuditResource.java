package io.fleetwave.controlplane.audit;

import io.fleetwave.controlplane.api.InstantParameter;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageParameters;
import io.fleetwave.controlplane.security.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
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
      @Parameter(
              description =
                  "only entries at or after this RFC 3339 time, e.g. 2026-11-30T16:00:00Z")
          @QueryParam("since")
          String since,
      @BeanParam PageParameters paging) {
    return log.list(blankToNull(actor), InstantParameter.parse("since", since), paging.request());
  }

  private static String blankToNull(String text) {
    return text == null || text.isBlank() ? null : text.strip();
  }
}
