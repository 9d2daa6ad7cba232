package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.config.RolloutConfig;
import io.fleetwave.controlplane.database.DatabaseFailures;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageParameters;
import io.fleetwave.controlplane.problem.Problem;
import io.fleetwave.controlplane.problem.ProblemException;
import io.fleetwave.controlplane.rollout.engine.RolloutEngine;
import io.fleetwave.controlplane.rollout.engine.RolloutEngines;
import io.fleetwave.controlplane.rollout.fleet.RolloutPlanning;
import io.fleetwave.controlplane.rollout.store.OperatorRequests;
import io.fleetwave.controlplane.rollout.store.RolloutConflictException;
import io.fleetwave.controlplane.rollout.store.RolloutEventView;
import io.fleetwave.controlplane.rollout.store.RolloutFullView;
import io.fleetwave.controlplane.rollout.store.RolloutNodeFilter;
import io.fleetwave.controlplane.rollout.store.RolloutNodeView;
import io.fleetwave.controlplane.rollout.store.RolloutOverview;
import io.fleetwave.controlplane.rollout.store.RolloutProgressReader;
import io.fleetwave.controlplane.rollout.store.RolloutSignals;
import io.fleetwave.controlplane.rollout.store.RolloutStore;
import io.fleetwave.controlplane.rollout.store.RolloutSummary;
import io.fleetwave.controlplane.rollout.store.RolloutView;
import io.fleetwave.controlplane.rollout.store.StoredRollout;
import io.fleetwave.controlplane.security.CurrentActor;
import io.fleetwave.controlplane.security.Roles;
import io.fleetwave.core.rollout.decide.OperatorOutcome;
import io.fleetwave.core.rollout.decide.RolloutState;
import io.fleetwave.core.rollout.plan.ExcludedNode;
import io.fleetwave.core.rollout.plan.RolloutPlan;
import io.fleetwave.core.rollout.plan.RolloutSpec;
import io.fleetwave.core.rollout.plan.RolloutSpecException;
import io.fleetwave.events.json.WireNamed;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
@Path("/api/v1/rollouts")
@Produces(MediaType.APPLICATION_JSON)
public class RolloutsResource {

  /** Bound on the lookup that decides between a stream and a 404. */
  private static final Duration LOOKUP_BOUND = Duration.ofSeconds(10);

  private static final List<String> ROLLOUT_STATES = WireNamed.wireNames(RolloutState.class);

  /** How many overlapping nodes a 409 names; the rest are counted. */
  static final int CONFLICT_NODES_SHOWN = 20;

  /** How many left-out nodes a refusal of a plan that changes no node names; all are listed. */
  static final int EXCLUDED_NODES_SHOWN = 20;

  private static final String EXECUTION_NOTE =
      " The engine runs it at once: waves in order (canary first), at most maxUnavailable nodes"
          + " and maxZonesInFlight zones in flight, each node sent its signed spec and watched"
          + " until it applied it and is healthy, within nodeTimeoutSeconds; then the soak and the"
          + " health gate; failure thresholds pause it or roll it back. Its events are on"
          + " fleet.rollout-events and at GET /api/v1/rollouts/{id}/events.";

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
  private final OperatorRequests requests;
  private final RolloutProgressReader progress;
  private final RolloutFullView fullView;
  private final RolloutEngines engines;
  private final RolloutSignals signals;
  private final Duration requestWait;
  // The token's subject: every rollout and operator action names who asked (roles make it present).
  private final CurrentActor actor;

  public RolloutsResource(
      RolloutPlanning planning,
      RolloutStore store,
      OperatorRequests requests,
      RolloutProgressReader progress,
      RolloutFullView fullView,
      RolloutEngines engines,
      RolloutSignals signals,
      CurrentActor actor,
      RolloutConfig config) {
    this.actor = actor;
    this.planning = planning;
    this.store = store;
    this.requests = requests;
    this.progress = progress;
    this.fullView = fullView;
    this.engines = engines;
    this.signals = signals;
    this.requestWait = config.requestWait();
  }

  @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
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
              + " rollout is stored with that plan in state 'created' (201, with the plan as GET"
              + " /api/v1/rollouts/{id} shows it: complete up to 500 planned nodes, cut above with"
              + " truncated: true); a planned node that"
              + " belongs to another active rollout refuses it with 409 naming the nodes and that"
              + " rollout; a plan that changes no node (every targeted node already at the target,"
              + " or left out for another reason) is refused with 422 naming each node's reason."
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
      description =
          "created: the stored rollout with its plan as GET /api/v1/rollouts/{id} shows it",
      content = @Content(schema = @Schema(implementation = StoredRollout.class)))
  @APIResponse(
      responseCode = "409",
      description =
          "planned nodes belong to an active rollout: problem+json with rollout {id, name},"
              + " nodes (the first 20) and nodeCount")
  @APIResponse(
      responseCode = "422",
      description =
          "invalid request, or a plan that changes no node: problem+json with"
              + " errors[{field, message}] (and excluded[{node, reason, detail}] for the latter)")
  public Uni<Response> create(
      RolloutSpec spec,
      @Parameter(description = "true: only plan and return the plan, store nothing")
          @QueryParam("dryRun")
          boolean dryRun) {
    Uni<RolloutPlan> plan =
        planning.plan(spec).onFailure(RolloutSpecException.class).transform(e -> invalid(e));
    if (dryRun) {
      return plan.map(p -> Response.ok(p).build());
    }
    return plan.invoke(RolloutsResource::requirePlannedNode)
        .invoke(this::requireDriverExecutor)
        .chain(p -> actor.subject().chain(who -> store.create(spec, p, who.orElseThrow())))
        .onFailure(RolloutConflictException.class)
        .transform(e -> conflict(e))
        .map(
            stored ->
                Response.created(URI.create("/api/v1/rollouts/" + stored.id()))
                    .entity(stored)
                    .build())
        .invoke(created -> engines.engine().ifPresent(RolloutEngine::wakeUp));
  }

  /**
   * A rollout whose plan changes no node is refused: the engine would have nothing to run (its log
   * cannot name a wave), so it would stay 'created' forever. The usual case is a request repeated
   * after it completed (every node already at the target); the refusal names why each was left out.
   */
  static void requirePlannedNode(RolloutPlan plan) {
    if (plan.plannedNodes() > 0) {
      return;
    }
    List<ExcludedNode> excluded = plan.excluded();
    String why =
        excluded.stream()
            .limit(EXCLUDED_NODES_SHOWN)
            .map(e -> e.node() + " (" + e.reason() + ": " + e.detail() + ")")
            .collect(java.util.stream.Collectors.joining(", "));
    String more =
        excluded.size() > EXCLUDED_NODES_SHOWN
            ? " and " + (excluded.size() - EXCLUDED_NODES_SHOWN) + " more"
            : "";
    String detail =
        excluded.isEmpty()
            ? "the plan changes no node: the target matches no node of the fleet"
            : "the plan changes no node: every targeted node is left out: " + why + more;
    throw ProblemException.invalid(
            "nothing to roll out; " + detail, List.of(new Problem.FieldError("target", detail)))
        .with("excluded", excluded);
  }

  private void requireDriverExecutor(RolloutPlan plan) {
    boolean driverChange = plan.change().driverVersion() != null && plan.plannedNodes() > 0;
    if (driverChange && !engines.driverChangesConfigured()) {
      throw ProblemException.invalid(
          "no driver executor is configured, so nothing could install driver "
              + plan.change().driverVersion()
              + "; set fleetwave.rollout.driver-executor (webhook or kubernetes-job)",
          List.of(
              new Problem.FieldError(
                  "change.driverVersion",
                  "no driver executor is configured on this control plane")));
    }
  }

  @GET
  @Operation(
      summary = "Rollouts, newest first, paged; filtered by state",
      description =
          "Each item is small (id, name, state, createdAt, plannedNodes, migConfig,"
              + " driverVersion), whatever the rollout's size. An unknown state or bad paging is"
              + " a 400 problem naming what is allowed."
              + EXECUTION_NOTE)
  public Uni<Page<RolloutSummary>> list(
      @Parameter(
              description =
                  "only rollouts in one of these states, comma-separated or repeated (created,"
                      + " running, paused, rolling-back, completed, aborted, rolled-back, failed)",
              example = "running,paused")
          @QueryParam("state")
          List<String> state,
      @BeanParam PageParameters page) {
    List<RolloutState> states =
        ListParameter.oneOf("state", state, ROLLOUT_STATES).stream()
            .map(name -> WireNamed.parse(RolloutState.class, name))
            .toList();
    return store.list(page.request(), states);
  }

  @GET
  @Path("/{id}")
  @Operation(
      summary =
          "One rollout in full: its request, its plan, its state and every node's progress (waves,"
              + " per-node state, reasons, timings); 404 when unknown",
      description =
          "Bounded whatever the rollout's size (about 100 KB at 10,000 nodes): progress.counts"
              + " counts every node, but progress.waves lists at most "
              + RolloutFullView.FULL_VIEW_NODES
              + " nodes (progress.nodesTruncated says when some are left out), and above that"
              + " many planned nodes the plan is shown truncated (truncated: true): each wave"
              + " with nodeCount, batchCount and its first batches, each batch with nodeCount"
              + " instead of its nodes, excluded nodes cut (excludedCount counts them). Pages and"
              + " watchers read"
              + " GET /api/v1/rollouts/{id}/summary (a few KB) and"
              + " GET /api/v1/rollouts/{id}/nodes (per-node states, paged)."
              + EXECUTION_NOTE)
  public Uni<RolloutView> get(@PathParam("id") String id) {
    return fullView.view(uuid(id)).map(found -> found.orElseThrow(() -> unknown(id)));
  }

  @GET
  @Path("/{id}/summary")
  @Operation(
      summary = "One rollout without per-node data; 404 when unknown",
      description =
          "id, name, state, actor, change, strategy, createdAt/updatedAt, currentWave,"
              + " awaitingPromotion, pausedBy (while paused: \"system\" for a failure threshold,"
              + " else the operator), statusReason, plannedNodes, counts (nodes per state:"
              + " pending, in-flight, succeeded, failed, skipped), failures, and per wave {index, nodes,"
              + " counts, startedAt, finishedAt}. A few KB whatever the number of nodes: what a"
              + " page or `fleetctl rollout status --watch` polls.")
  @APIResponse(
      responseCode = "200",
      description = "the rollout's summary",
      content = @Content(schema = @Schema(implementation = RolloutOverview.class)))
  @APIResponse(responseCode = "404", description = "no such rollout: problem+json")
  public Uni<RolloutOverview> summary(@PathParam("id") String id) {
    return progress.summary(uuid(id)).map(found -> found.orElseThrow(() -> unknown(id)));
  }

  @GET
  @Path("/{id}/nodes")
  @Operation(
      summary = "The rollout's planned nodes with their state, paged; filtered by state and wave",
      description =
          "Ordered by wave, then node name. Each item: node, wave, phase (forward or rollback),"
              + " state, generation, reason, startedAt, finishedAt, elapsedMillis. Filters combine"
              + " with AND; each takes one or more values, comma-separated or repeated. 404"
              + " problem when the rollout is unknown; 400 problem for bad paging, an unknown"
              + " state or a wave that is not a positive integer.")
  public Uni<Page<RolloutNodeView>> nodes(
      @PathParam("id") String id,
      @Parameter(
              description =
                  "only nodes in one of these states: pending, in-flight, succeeded, failed, skipped",
              example = "failed,in-flight")
          @QueryParam("state")
          List<String> state,
      @Parameter(description = "only nodes of these waves (1 = the canary)", example = "1,2")
          @QueryParam("wave")
          List<String> wave,
      @BeanParam PageParameters page) {
    UUID rollout = uuid(id);
    RolloutNodeFilter filter =
        new RolloutNodeFilter(
            ListParameter.oneOf("state", state, RolloutProgressReader.NODE_STATES),
            ListParameter.positiveIntegers("wave", wave));
    return progress
        .nodes(rollout, filter, page.request())
        .map(found -> found.orElseThrow(() -> unknown(id)));
  }

  @GET
  @Path("/{id}/events")
  @Operation(summary = "The rollout's events after seq `after`, oldest first (at most 1000)")
  public Uni<List<RolloutEventView>> events(
      @PathParam("id") String id,
      @QueryParam("after") @jakarta.ws.rs.DefaultValue("0") long after) {
    UUID rollout = uuid(id);
    return store
        .state(rollout)
        .map(found -> found.orElseThrow(() -> unknown(id)))
        .chain(found -> store.events(rollout, after, 1000));
  }

  /** One poll of the stream: new events, and whether the rollout is over. */
  private record StreamBatch(List<RolloutEventView> events, boolean over) {}

  @GET
  @Path("/{id}/stream")
  @Produces(MediaType.SERVER_SENT_EVENTS)
  @Blocking
  @Operation(
      summary = "Server-sent events: the rollout's events as they happen",
      description =
          "Each SSE event has the rollout event's seq as id, its type as name and the event as"
              + " JSON data. Reconnect with Last-Event-ID to continue after the last one seen."
              + " The stream ends after the rollout's final event.")
  public Multi<OutboundSseEvent> stream(
      @PathParam("id") String id,
      @HeaderParam("Last-Event-ID") String lastEventId,
      @Context Sse sse) {
    UUID rollout = uuid(id);
    AtomicLong last = new AtomicLong(parseSeq(lastEventId));
    // Looked up before the response starts (a worker thread may wait, bounded), so an unknown
    // rollout is a 404 problem like its siblings' rather than a 200 stream broken off.
    if (store.state(rollout).await().atMost(LOOKUP_BOUND).isEmpty()) {
      throw unknown(id);
    }
    return events(rollout, id, last, sse);
  }

  private Multi<OutboundSseEvent> events(UUID rollout, String id, AtomicLong last, Sse sse) {
    // Re-read when the engine signals a change of this rollout (LISTEN/NOTIFY), not on a timer.
    return signals
        .ticks(RolloutSignals.changed(rollout))
        .onOverflow()
        .drop()
        .onItem()
        .transformToUniAndConcatenate(
            tick ->
                store
                    .events(rollout, last.get(), 500)
                    .chain(
                        events ->
                            store
                                .state(rollout)
                                .map(
                                    found -> {
                                      RolloutState current = found.orElseThrow(() -> unknown(id));
                                      return new StreamBatch(
                                          events, events.isEmpty() && !current.active());
                                    }))
                    // PostgreSQL away: the stream ends cleanly and the client reconnects with
                    // Last-Event-ID, instead of breaking off with an error nobody can be sent.
                    .onFailure(DatabaseFailures::unavailable)
                    .recoverWithItem(new StreamBatch(List.of(), true)))
        .select()
        .first(batch -> !batch.over())
        .onItem()
        .transformToMultiAndConcatenate(batch -> Multi.createFrom().iterable(batch.events()))
        .map(
            event -> {
              last.set(event.seq());
              return sse.newEventBuilder()
                  .id(Long.toString(event.seq()))
                  .name(event.type())
                  .mediaType(MediaType.APPLICATION_JSON_TYPE)
                  .data(event)
                  .build();
            });
  }

  private static long parseSeq(String lastEventId) {
    if (lastEventId == null || lastEventId.isBlank()) {
      return 0;
    }
    try {
      return Long.parseLong(lastEventId.trim());
    } catch (NumberFormatException e) {
      throw ProblemException.invalid(
          "Last-Event-ID '" + lastEventId + "' is not an event seq",
          List.of(new Problem.FieldError("Last-Event-ID", "expected a number")));
    }
  }

  @RolesAllowed({Roles.OPERATOR, Roles.ADMIN})
  @POST
  @Path("/{id}/{action: pause|resume|abort|rollback|promote}")
  @Operation(
      summary = "Pause, resume, abort, roll back or promote a rollout",
      description =
          "pause: no new node starts (nodes in flight finish). resume: continue; failures so far"
              + " are accepted and the thresholds count failures after it. abort: stop for good"
              + " and free the nodes (nodes already sent their spec keep it). rollback: restore"
              + " every touched node's previous spec from the log, newest wave first. promote:"
              + " with manualPromotion, let the next wave start. The engine records the action"
              + " as an event; the answer is the rollout's summary after it (200, as GET"
              + " .../summary), 409 when the action does"
              + " not apply to the rollout's state (with the reason), 404 when unknown, 202 when"
              + " no engine took it up within fleetwave.rollout.request-wait (it stays queued),"
              + " 503 fact-not-recorded when Kafka did not take the request (nothing is queued).")
  @APIResponse(
      responseCode = "200",
      description = "done: the rollout's summary after it",
      content = @Content(schema = @Schema(implementation = RolloutOverview.class)))
  @APIResponse(responseCode = "202", description = "queued: no engine answered in time")
  @APIResponse(responseCode = "409", description = "the action does not apply now")
  public Uni<Response> act(
      @PathParam("id") String id,
      @PathParam("action") String action,
      @Parameter(description = "why, recorded in the rollout's events") @QueryParam("reason")
          String reason) {
    UUID rollout = uuid(id);
    String why = reason == null || reason.isBlank() ? null : reason;
    return actor
        .subject()
        .chain(who -> requests.request(rollout, action, why, who.orElseThrow()))
        .onFailure(IllegalStateException.class)
        .transform(
            e ->
                new ProblemException(
                    409, "rollout-not-active", "Rollout is not active", e.getMessage()))
        .map(found -> found.orElseThrow(() -> unknown(id)))
        .invoke(request -> engines.engine().ifPresent(RolloutEngine::wakeUp))
        .chain(request -> outcome(request).map(wire -> OperatorOutcome.read(request, wire)))
        .chain(
            outcome -> {
              if (outcome == null) {
                return Uni.createFrom()
                    .item(
                        Response.accepted(
                                java.util.Map.of(
                                    "detail",
                                    "queued: no rollout engine took up the "
                                        + action
                                        + " within "
                                        + requestWait.toSeconds()
                                        + " s; it is applied when one does"))
                            .build());
              }
              return switch (outcome) {
                case OperatorOutcome.Refused refused ->
                    throw new ProblemException(
                        409, "rollout-action-refused", "Action does not apply", refused.reason());
                // The summary, not the full view: small whatever the rollout's size.
                case OperatorOutcome.Done done ->
                    summary(id).map(view -> Response.ok(view).build());
              };
            });
  }

  /** Waits (bounded) for the engine's answer to a request: null when none came in time. */
  private Uni<String> outcome(UUID request) {
    // Read when the engine signals its answer (LISTEN/NOTIFY), not on a timer.
    return signals
        .ticks(RolloutSignals.answered(request))
        // A tick that comes while the previous read is still running is dropped, not queued.
        .onOverflow()
        .drop()
        .onItem()
        .transformToUniAndConcatenate(
            tick -> requests.outcome(request).map(java.util.Optional::ofNullable))
        .select()
        .where(java.util.Optional::isPresent)
        .toUni()
        .map(java.util.Optional::get)
        .ifNoItem()
        .after(requestWait)
        .recoverWithItem((String) null);
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
