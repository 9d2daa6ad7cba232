package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.fleetview.FleetView;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageParameters;
import io.fleetwave.controlplane.paging.PageRequest;
import io.fleetwave.controlplane.problem.Problem;
import io.fleetwave.controlplane.problem.ProblemException;
import io.fleetwave.controlplane.readmodel.ChangeView;
import io.fleetwave.controlplane.readmodel.HistoryHorizon;
import io.fleetwave.controlplane.readmodel.HistoryQueries;
import io.fleetwave.controlplane.readmodel.NodeEventView;
import io.fleetwave.controlplane.readmodel.NodeFilter;
import io.fleetwave.controlplane.readmodel.NodeListView;
import io.fleetwave.controlplane.readmodel.NodeQueries;
import io.fleetwave.controlplane.readmodel.NodeView;
import io.fleetwave.controlplane.security.CurrentActor;
import io.fleetwave.controlplane.security.Roles;
import io.fleetwave.controlplane.spec.CommandAccepted;
import io.fleetwave.controlplane.spec.ResetGpuRequest;
import io.fleetwave.controlplane.spec.SpecPublished;
import io.fleetwave.controlplane.spec.SpecRequest;
import io.fleetwave.controlplane.spec.SpecService;
import io.fleetwave.controlplane.spec.SpecView;
import io.fleetwave.events.json.WireNamed;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.jboss.resteasy.reactive.ResponseStatus;
import org.jboss.resteasy.reactive.RestResponse;

@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
@Path("/api/v1/nodes")
@Produces(MediaType.APPLICATION_JSON)
public class NodesResource {
  private final NodeQueries nodes;
  private final HistoryQueries history;
  private final SpecService specs;
  private final CurrentActor actor;
  private final HistoryHorizon horizon;
  private final FleetView view;

  public NodesResource(
      NodeQueries nodes,
      HistoryQueries history,
      SpecService specs,
      CurrentActor actor,
      HistoryHorizon horizon,
      FleetView view) {
    this.view = view;
    this.nodes = nodes;
    this.history = history;
    this.specs = specs;
    this.actor = actor;
    this.horizon = horizon;
  }

  @GET
  @Operation(
      summary = "List nodes, filtered and paged, sorted by name",
      description =
          "view=full (the default): each node with every GPU and its MIG instances (about 2.6 KB"
              + " a node of 8 GPUs). view=brief: the same facts with the GPUs counted by model"
              + " (gpuModels: pciDeviceId, product, gpus, migEnabled, notHealthy) instead of"
              + " gpus, a few hundred bytes a node: what a table of nodes needs.")
  public Uni<RestResponse<Page<NodeView>>> list(
      @Parameter(description = "ubuntu, ubuntu-driver-container, talos, cos or vgpu-host")
          @QueryParam("hostKind")
          String hostKind,
      @Parameter(description = "PCI device id with vendor of a GPU the node has, e.g. 0x233010DE")
          @QueryParam("gpuModel")
          String gpuModel,
      @Parameter(description = "Kubernetes label selector, e.g. pool=training,zone notin (b)")
          @QueryParam("selector")
          String selector,
      @Parameter(
              description = "the node's zone, as reported (GET /api/v1/fleet/versions lists them)")
          @QueryParam("zone")
          String zone,
      @BeanParam PageParameters page,
      @Parameter(description = "full (default: every GPU) or brief (GPUs counted by model)")
          @QueryParam("view")
          String view,
      @BeanParam AsOfParameter asOf) {
    NodeFilter parsed = NodeFilter.parse(hostKind, gpuModel, selector);
    NodeFilter.Condition filter = parsed.toSql().inZone(zone);
    PageRequest paging = page.request();
    NodeListView form = listView(view);
    return asOf.answer(
        horizon,
        at ->
            (at.isPresent()
                    ? Optional.<Page<NodeView>>empty()
                    : this.view.list(parsed, zone, paging, form))
                .map(Uni.createFrom()::item)
                .orElseGet(
                    () ->
                        at.map(nodes::asOf)
                            .orElse(nodes)
                            .list(filter.sql(), filter.params(), paging, form)));
  }

  /** The listing's form; a 400 problem naming the allowed ones for any other. */
  private static NodeListView listView(String view) {
    List<String> given =
        ListParameter.oneOf(
            "view", view == null ? List.of() : List.of(view), NodeListView.WIRE_NAMES);
    if (given.size() > 1) {
      throw ProblemException.badRequest(
              "bad-filter",
              "Invalid filter",
              "query parameter 'view' takes one value (full or brief), got '" + view + "'")
          .with("parameter", "view");
    }
    return given.isEmpty()
        ? NodeListView.FULL
        : WireNamed.parse(NodeListView.class, given.getFirst());
  }

  @GET
  @Path("/{name}")
  @Operation(
      summary = "One node with its GPUs; 404 when unknown (at asOf: unknown then)",
      description =
          "From the replica's in-memory view of fleet.node-events and fleet.control-facts: every"
              + " event the projection accepts shows once Kafka hands it over, usually before the"
              + " tables hold it. While the view loads (at start, or after Kafka or PostgreSQL"
              + " was away) it is read from PostgreSQL instead. With asOf: from the node"
              + " history.")
  public Uni<RestResponse<NodeView>> get(
      @PathParam("name") String name, @BeanParam AsOfParameter asOf) {
    return asOf.answer(
        horizon,
        at ->
            (at.isPresent() ? Optional.<Optional<NodeView>>empty() : view.node(name))
                .map(Uni.createFrom()::item)
                .orElseGet(() -> at.map(nodes::asOf).orElse(nodes).find(name))
                .map(found -> found.orElseThrow(() -> ProblemException.unknownNode(name))));
  }

  @GET
  @Path("/{name}/events")
  @Operation(summary = "The node's applied events, newest first, paged")
  public Uni<Page<NodeEventView>> events(
      @PathParam("name") String name, @BeanParam PageParameters page) {
    PageRequest paging = page.request();
    return view.tablesReach(name)
        .chain(() -> nodes.ifKnown(name, () -> history.events(name, paging)));
  }

  // Field-injected so that this resource's constructor stays as it is: the changes are their own
  // resource's (ChangesResource), reached here only because the path starts with the node's.
  @Inject ChangesResource changes;

  @GET
  @Path("/{name}/changes")
  @Operation(
      summary = "The node's observed changes in a window, newest first, with causes",
      description =
          "As GET /api/v1/changes, for one node; 404 when unknown. since defaults to 24 h before"
              + " until, until to now (RFC 3339 times).")
  public Uni<Page<ChangeView>> changes(
      @PathParam("name") String name,
      @QueryParam("since") String since,
      @QueryParam("until") String until,
      @BeanParam PageParameters page) {
    return changes.ofNode(name, since, until, page);
  }

  @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
  @PUT
  @Path("/{name}/spec")
  @Consumes(MediaType.APPLICATION_JSON)
  @ResponseStatus(202)
  @Operation(
      summary = "Set the node's desired spec (merged onto the current one), signed and published",
      description =
          "GPUs not listed keep their current desired state (for a node's first spec: its observed"
              + " state); omitted fields of a listed GPU keep theirs. The spec is validated against"
              + " the node's observed GPUs and the GPU catalogue; on success generation + 1 is"
              + " published to fleet.node-desired as a signed ApplyNodeSpec.")
  @APIResponse(responseCode = "202", description = "published: node and new generation")
  @APIResponse(
      responseCode = "404",
      description = "unknown node",
      content =
          @Content(
              mediaType = Problem.MEDIA_TYPE,
              schema = @Schema(implementation = Problem.class)))
  @APIResponse(
      responseCode = "422",
      description = "invalid spec; `errors` names each GPU field; nothing published",
      content =
          @Content(
              mediaType = Problem.MEDIA_TYPE,
              schema = @Schema(implementation = Problem.class)))
  @APIResponse(
      responseCode = "503",
      description = "no signing key configured, or Kafka did not acknowledge in time",
      content =
          @Content(
              mediaType = Problem.MEDIA_TYPE,
              schema = @Schema(implementation = Problem.class)))
  public Uni<SpecPublished> putSpec(@PathParam("name") String name, SpecRequest request) {
    return view.tablesReach(name)
        .chain(actor::subject)
        .chain(subject -> specs.put(name, request, subject.orElseThrow()));
  }

  @GET
  @Path("/{name}/spec")
  @Operation(summary = "Desired spec, observed GPUs, last reconcile and whether it converged")
  @APIResponse(responseCode = "200", description = "the node's spec view")
  @APIResponse(responseCode = "404", description = "unknown node")
  public Uni<SpecView> getSpec(@PathParam("name") String name) {
    return view.tablesReach(name).chain(() -> specs.view(name));
  }

  @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
  @POST
  @Path("/{name}/actions/reset-gpu")
  @Consumes(MediaType.APPLICATION_JSON)
  @ResponseStatus(202)
  @Operation(
      summary = "Reset one GPU (signed one-shot ResetGpu on fleet.node-commands)",
      description = "The command expires after fleetwave.commands.lifetime (default 5 min).")
  @APIResponse(responseCode = "202", description = "published")
  @APIResponse(responseCode = "404", description = "unknown node")
  @APIResponse(responseCode = "422", description = "unknown GPU or no GPU index given")
  @APIResponse(responseCode = "503", description = "no signing key, or Kafka timed out")
  public Uni<CommandAccepted> resetGpu(@PathParam("name") String name, ResetGpuRequest request) {
    return view.tablesReach(name).chain(() -> specs.resetGpu(name, request));
  }
}
