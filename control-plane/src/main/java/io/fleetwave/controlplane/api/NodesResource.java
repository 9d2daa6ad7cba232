package io.fleetwave.controlplane.api;

import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;

@Path("/api/v1/nodes")
@Produces(MediaType.APPLICATION_JSON)
public class NodesResource {
  private final NodeQueries nodes;
  private final HistoryQueries history;

  public NodesResource(NodeQueries nodes, HistoryQueries history) {
    this.nodes = nodes;
    this.history = history;
  }

  @GET
  @Operation(summary = "List nodes, filtered and paged, sorted by name")
  public Uni<Page<NodeView>> list(
      @Parameter(description = "ubuntu, ubuntu-driver-container, talos, cos or vgpu-host")
          @QueryParam("hostKind")
          String hostKind,
      @Parameter(description = "PCI device id with vendor of a GPU the node has, e.g. 0x233010DE")
          @QueryParam("gpuModel")
          String gpuModel,
      @Parameter(description = "Kubernetes label selector, e.g. pool=training,zone notin (b)")
          @QueryParam("selector")
          String selector,
      @Parameter(description = "0-based page number (default 0)") @QueryParam("page") String page,
      @Parameter(description = "page size, 1..500 (default 50)") @QueryParam("size") String size) {
    NodeFilter filter = NodeFilter.parse(hostKind, gpuModel, selector);
    PageRequest paging = PageRequest.parse(page, size);
    return nodes.list(filter, paging);
  }

  @GET
  @Path("/{name}")
  @Operation(summary = "One node with its GPUs; 404 when unknown")
  public Uni<NodeView> get(@PathParam("name") String name) {
    return nodes
        .find(name)
        .map(found -> found.orElseThrow(() -> ProblemException.unknownNode(name)));
  }

  @GET
  @Path("/{name}/events")
  @Operation(summary = "The node's applied events, newest first, paged")
  public Uni<Page<NodeEventView>> events(
      @PathParam("name") String name,
      @QueryParam("page") String page,
      @QueryParam("size") String size) {
    PageRequest paging = PageRequest.parse(page, size);
    return nodes
        .find(name)
        .chain(
            found -> {
              if (found.isEmpty()) {
                throw ProblemException.unknownNode(name);
              }
              return history.events(name, paging);
            });
  }
}
