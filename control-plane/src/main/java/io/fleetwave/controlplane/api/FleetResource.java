package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.readmodel.FleetSummary;
import io.fleetwave.controlplane.readmodel.SummaryQueries;
import io.fleetwave.controlplane.security.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
@Path("/api/v1/fleet")
@Produces(MediaType.APPLICATION_JSON)
public class FleetResource {
  private final SummaryQueries summaries;

  public FleetResource(SummaryQueries summaries) {
    this.summaries = summaries;
  }

  @GET
  @Path("/summary")
  @Operation(summary = "Counts by host kind, GPU model, MIG mode and health")
  public Uni<FleetSummary> summary() {
    return summaries.summary();
  }
}
