package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.fleetview.FleetView;
import io.fleetwave.controlplane.readmodel.AsOfVersions;
import io.fleetwave.controlplane.readmodel.FleetSummary;
import io.fleetwave.controlplane.readmodel.HistoryHorizon;
import io.fleetwave.controlplane.readmodel.SummaryQueries;
import io.fleetwave.controlplane.readmodel.VersionDistribution;
import io.fleetwave.controlplane.readmodel.VersionQueries;
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
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.jboss.resteasy.reactive.RestResponse;

@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
@Path("/api/v1/fleet")
@Produces(MediaType.APPLICATION_JSON)
public class FleetResource {
  private final FleetView view;
  private final SummaryQueries summaries;
  private final VersionQueries versions;
  private final AsOfVersions pastVersions;
  private final HistoryHorizon horizon;

  public FleetResource(
      FleetView view,
      SummaryQueries summaries,
      VersionQueries versions,
      AsOfVersions pastVersions,
      HistoryHorizon horizon) {
    this.view = view;
    this.summaries = summaries;
    this.versions = versions;
    this.pastVersions = pastVersions;
    this.horizon = horizon;
  }

  @GET
  @Path("/summary")
  @Operation(
      summary = "Counts by host kind, GPU model, MIG mode and health",
      description =
          "From the replica's in-memory view of fleet.node-events: every event the projection"
              + " accepts is counted once Kafka hands it over, usually before the tables hold it."
              + " While the view loads (at start, or after Kafka or PostgreSQL was away) it is"
              + " counted in PostgreSQL instead, at most fleetwave.api.summary-max-age old"
              + " (default 2 s). With asOf: counted for the call from the node history.")
  public Uni<RestResponse<FleetSummary>> summary(@BeanParam AsOfParameter asOf) {
    return asOf.answer(horizon, at -> at.map(summaries::asOf).orElseGet(this::currentSummary));
  }

  private Uni<FleetSummary> currentSummary() {
    return view.summary().map(Uni.createFrom()::item).orElseGet(summaries::summary);
  }

  @GET
  @Path("/versions")
  @Operation(
      summary = "Version distribution: nodes per zone, pool, driver, OS and MIG layout",
      description =
          "One row per distinct (zone, pool, driver version, OS, MIG layout) with its node count"
              + " and how many of those nodes drift from their desired state (not converged, or"
              + " a desired driver they do not run). The pool is the node's first pool label"
              + " (pool, GKE/EKS/Karpenter/AKS node pool). At most "
              + VersionQueries.MAX_ROWS
              + " rows. From the replica's in-memory view of fleet.node-events and"
              + " fleet.control-facts (where the database orders strings as Java does, a C"
              + " collation); while it loads, from PostgreSQL. With asOf: from the node history.")
  public Uni<RestResponse<List<VersionDistribution>>> versions(
      @Parameter(description = "only this zone ('(none)' for nodes without one)")
          @QueryParam("zone")
          String zone,
      @Parameter(description = "only this pool ('(none)' for nodes without one)")
          @QueryParam("pool")
          String pool,
      @BeanParam AsOfParameter asOf) {
    return asOf.answer(
        horizon,
        at ->
            at.map(m -> pastVersions.distribution(m, blankToNull(zone), blankToNull(pool)))
                .orElseGet(() -> currentVersions(blankToNull(zone), blankToNull(pool))));
  }

  private Uni<List<VersionDistribution>> currentVersions(String zone, String pool) {
    return view.versions(zone, pool)
        .map(Uni.createFrom()::item)
        .orElseGet(() -> versions.distribution(zone, pool));
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
