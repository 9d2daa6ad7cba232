package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.rollout.fleet.RolloutPlanning;
import io.fleetwave.controlplane.rollout.plan.RolloutPlan;
import io.fleetwave.controlplane.rollout.plan.RolloutSpec;
import io.fleetwave.controlplane.rollout.plan.RolloutSpecException;
import io.fleetwave.controlplane.rollout.store.RolloutConflictException;
import io.fleetwave.controlplane.rollout.store.RolloutStore;
import io.fleetwave.controlplane.rollout.store.RolloutSummary;
import io.fleetwave.controlplane.rollout.store.StoredRollout;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

@Path("/api/v1/rollouts")
@Produces(MediaType.APPLICATION_JSON)
public class RolloutsResource {
  /** How many overlapping nodes a 409 names; the rest are counted. */
  static final int CONFLICT_NODES_SHOWN = 20;

  private static final String EXECUTION_NOTE =
      " Execution is not implemented yet: no wave runs, the rollout stays in state 'created'"
          + " until it is aborted.";

  private static final String EXAMPLE =
      """
      {"name": "h100-balanced",
       "target": {"selector": "pool=training", "gpuModels": ["0x233010DE"],
                  "hostKinds": ["ubuntu"], "nodes": []},
       "change": {"migConfig": "all-balanced", "driverVersion": null},
       "strategy": {"waves": ["1", "10%", "50%", "100%"], "maxUnavailable": "10%",
                    "maxZonesInFlight": 1, "soakSeconds": 0,
                    "failureThreshold": {"perWave": "20%", "total": "5%", "action": "pause"},
                    "manualPromotion": false, "nodeTimeoutSeconds": 600}}
      """;

  private final RolloutPlanning planning;
  private final RolloutStore store;

  public RolloutsResource(RolloutPlanning planning, RolloutStore store) {
    this.planning = planning;
    this.store = store;
  }

  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  @Operation(
      summary = "Plan a rollout (dryRun=true) or create it",
      description =
          "Plans the change against the fleet as projected now and the stored MIG configs:"
              + " target fields combine with AND and the whole fleet is targeted only with"
              + " \"allNodes\": true (an empty target is refused). The plan lists the waves"
              + " (canary first) with their batches and nodes; per node the GPU changes, whether"
              + " a reset is needed, the VFs touched and the driver artifact or the OS upgrade"
              + " needed; excluded nodes with reasons; capacity impact per GPU model. With"
              + " dryRun=true the plan is returned (200) and nothing is stored. Without it the"
              + " rollout is stored with that plan in state 'created' (201); a planned node that"
              + " belongs to another active rollout refuses it with 409 naming the nodes and that"
              + " rollout."
              + EXECUTION_NOTE)
  @RequestBody(
      content =
          @Content(
              mediaType = MediaType.APPLICATION_JSON,
              schema = @Schema(implementation = RolloutSpec.class),
              examples = @ExampleObject(name = "h100-balanced", value = EXAMPLE)))
  @APIResponse(
      responseCode = "200",
      description = "dry run: the plan",
      content = @Content(schema = @Schema(implementation = RolloutPlan.class)))
  @APIResponse(
      responseCode = "201",
      description = "created: the stored rollout with its plan",
      content = @Content(schema = @Schema(implementation = StoredRollout.class)))
  @APIResponse(
      responseCode = "409",
      description =
          "planned nodes belong to an active rollout: problem+json with rollout {id, name},"
              + " nodes (the first 20) and nodeCount")
  @APIResponse(
      responseCode = "422",
      description = "invalid request: problem+json with errors[{field, message}]")
  public Uni<Response> create(
      RolloutSpec spec,
      @Parameter(description = "true: only plan and return the plan, store nothing")
          @QueryParam("dryRun")
          boolean dryRun) {
    Uni<RolloutPlan> plan =
        planning
            .plan(spec)
            .onFailure(RolloutSpecException.class)
            .transform(e -> invalid((RolloutSpecException) e));
    if (dryRun) {
      return plan.map(p -> Response.ok(p).build());
    }
    return plan.chain(p -> store.create(spec, p))
        .onFailure(RolloutConflictException.class)
        .transform(e -> conflict((RolloutConflictException) e))
        .map(
            stored ->
                Response.created(URI.create("/api/v1/rollouts/" + stored.id()))
                    .entity(stored)
                    .build());
  }

  @GET
  @Operation(summary = "Rollouts, newest first, paged", description = EXECUTION_NOTE)
  public Uni<Page<RolloutSummary>> list(
      @Parameter(description = "0-based page number (default 0)") @QueryParam("page") String page,
      @Parameter(description = "page size, 1..500 (default 50)") @QueryParam("size") String size) {
    return store.list(PageRequest.parse(page, size));
  }

  @GET
  @Path("/{id}")
  @Operation(
      summary = "One rollout: its request, its plan and its state; 404 when unknown",
      description = EXECUTION_NOTE)
  public Uni<StoredRollout> get(@PathParam("id") String id) {
    return store.find(uuid(id)).map(found -> found.orElseThrow(() -> unknown(id)));
  }

  @POST
  @Path("/{id}/abort")
  @Operation(
      summary = "Abort a rollout",
      description =
          "Sets an active rollout's state to 'aborted', which frees its nodes for other rollouts."
              + " 409 when it is no longer active, 404 when unknown."
              + EXECUTION_NOTE)
  public Uni<StoredRollout> abort(@PathParam("id") String id) {
    return store
        .abort(uuid(id))
        .map(
            found -> {
              RolloutStore.AbortOutcome outcome = found.orElseThrow(() -> unknown(id));
              StoredRollout rollout = outcome.rollout();
              if (!outcome.abortedNow()) {
                throw new ProblemException(
                    409,
                    "rollout-not-active",
                    "Rollout is not active",
                    "rollout "
                        + rollout.name()
                        + " ("
                        + id
                        + ") is "
                        + rollout.state().wireName()
                        + " and cannot be aborted");
              }
              return rollout;
            });
  }

  private static ProblemException invalid(RolloutSpecException e) {
    return new ProblemException(422, "invalid-rollout", "Invalid rollout", e.getMessage())
        .with("errors", e.problems());
  }

  /** The 409 body: the first {@value #CONFLICT_NODES_SHOWN} nodes by name, the count of all. */
  static ProblemException conflict(RolloutConflictException e) {
    List<String> nodes = e.nodes();
    List<String> shown = nodes.subList(0, Math.min(CONFLICT_NODES_SHOWN, nodes.size()));
    String more =
        nodes.size() > shown.size() ? " and " + (nodes.size() - shown.size()) + " more" : "";
    return new ProblemException(
            409,
            "rollout-conflict",
            "Nodes belong to another active rollout",
            nodes.size()
                + " planned node(s) belong to active rollout "
                + e.rolloutName()
                + " ("
                + e.rolloutId()
                + "): "
                + String.join(", ", shown)
                + more
                + "; a node belongs to at most one active rollout: abort that one or narrow the"
                + " target")
        .with("rollout", Map.of("id", e.rolloutId().toString(), "name", e.rolloutName()))
        .with("nodes", shown)
        .with("nodeCount", nodes.size());
  }

  private static UUID uuid(String id) {
    try {
      return UUID.fromString(id);
    } catch (IllegalArgumentException e) {
      throw unknown(id);
    }
  }

  private static ProblemException unknown(String id) {
    return new ProblemException(
        404, "unknown-rollout", "Unknown rollout", "no rollout with id '" + id + "'");
  }
}
