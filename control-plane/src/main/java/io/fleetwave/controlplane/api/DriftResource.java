package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.config.MetricsConfig;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageParameters;
import io.fleetwave.controlplane.readmodel.DriftQueries;
import io.fleetwave.controlplane.readmodel.DriftView;
import io.fleetwave.controlplane.security.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Set;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;

/** {@code GET /api/v1/drift}: the nodes that differ from what they should be, and why. */
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
@Path("/api/v1/drift")
@Produces(MediaType.APPLICATION_JSON)
public class DriftResource {
  private final DriftQueries drift;
  private final MetricsConfig metrics;

  public DriftResource(DriftQueries drift, MetricsConfig metrics) {
    this.drift = drift;
    this.metrics = metrics;
  }

  @GET
  @Operation(
      summary = "Nodes whose observed state differs from their desired state, by name, paged",
      description =
          "Each with since when and why: not-converged (the agent's reason), changed-outside"
              + " (each aspect changed by nothing Fleetwave asked for, with what it was and what"
              + " it is), agent-silent (no event for longer than fleetwave.metrics.silent-after).")
  public Uni<Page<DriftView>> list(
      @Parameter(description = "not-converged, changed-outside, agent-silent (any by default)")
          @QueryParam("cause")
          List<String> cause,
      @BeanParam PageParameters page) {
    Set<String> causes = Set.copyOf(ListParameter.oneOf("cause", cause, DriftView.CAUSES));
    return drift.drift(metrics.silentAfter(), causes, page.request());
  }
}
