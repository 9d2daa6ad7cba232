package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.fleetview.FleetView;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageParameters;
import io.fleetwave.controlplane.paging.PageRequest;
import io.fleetwave.controlplane.readmodel.ChangeQueries;
import io.fleetwave.controlplane.readmodel.ChangeView;
import io.fleetwave.controlplane.readmodel.NodeFilter;
import io.fleetwave.controlplane.readmodel.NodeQueries;
import io.fleetwave.controlplane.security.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Clock;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;

/**
 * What changed on nodes in a window of time, and why: {@code GET /api/v1/changes} over the nodes a
 * label selector picks, and (through {@link NodesResource}) {@code GET
 * /api/v1/nodes/{name}/changes} for one node.
 */
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
@Path("/api/v1/changes")
@Produces(MediaType.APPLICATION_JSON)
public class ChangesResource {
  private final ChangeQueries changes;
  private final NodeQueries nodes;
  private final FleetView view;
  private final Clock clock = Clock.systemUTC();

  public ChangesResource(ChangeQueries changes, NodeQueries nodes, FleetView view) {
    this.changes = changes;
    this.nodes = nodes;
    this.view = view;
  }

  @GET
  @Operation(
      summary = "Observed changes of the selected nodes in a window, newest first, with causes",
      description =
          "Each change of a node's driver, or a GPU's MIG mode, MIG layout, VFs or health: from"
              + " what to what, when it was seen, and its cause: spec (the generation, and the"
              + " rollout or person behind it), reboot, or outside (nothing Fleetwave asked for:"
              + " drift). since defaults to 24 h before until, until to now.")
  public Uni<Page<ChangeView>> list(
      @Parameter(description = "Kubernetes label selector, e.g. pool=training")
          @QueryParam("selector")
          String selector,
      @Parameter(description = "RFC 3339 time, inclusive") @QueryParam("since") String since,
      @Parameter(description = "RFC 3339 time, exclusive") @QueryParam("until") String until,
      @BeanParam PageParameters page) {
    NodeFilter.Condition filter = NodeFilter.parse(null, null, selector).toSql();
    TimeWindow window = TimeWindow.parse(since, until, clock);
    return changes.changes(
        filter.sql(), filter.params(), window.since(), window.until(), page.request());
  }

  /** One node's changes; 404 for a node never seen. */
  Uni<Page<ChangeView>> ofNode(String name, String since, String until, PageParameters page) {
    TimeWindow window = TimeWindow.parse(since, until, clock);
    PageRequest paging = page.request();
    return view.tablesReach(name)
        .chain(
            () ->
                nodes.ifKnown(
                    name,
                    () ->
                        changes.changes(
                            ChangeQueries.nodeNamed(),
                            List.of(name),
                            window.since(),
                            window.until(),
                            paging)));
  }
}
