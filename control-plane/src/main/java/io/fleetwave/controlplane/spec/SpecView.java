package io.fleetwave.controlplane.spec;

import io.fleetwave.controlplane.readmodel.NodeView;
import io.fleetwave.events.spec.NodeSpec;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** {@code GET /api/v1/nodes/{name}/spec}: desired, observed and the last reconcile. */
@Schema(description = "A node's desired spec, its observed GPUs and its last reconcile")
public record SpecView(
    String node,
    @Schema(description = "the newest desired spec, null before the first PUT", nullable = true)
        Desired desired,
    @Schema(description = "the GPUs as the agent last reported them")
        List<NodeView.GpuView> observed,
    Reconcile reconcile,
    @Schema(description = "desired generation applied and no failure since") boolean converged,
    @Schema(description = "why not converged; null when converged", nullable = true)
        String notConvergedReason) {

  public record Desired(long generation, NodeSpec spec) {}

  @Schema(description = "The node's reconcile as its progress events tell it")
  public record Reconcile(
      long acceptedGeneration,
      long appliedGeneration,
      @Schema(description = "device-plugin gate: held, released, or null", nullable = true)
          String gate,
      String gateReason,
      String bootId,
      boolean bootPending,
      @Schema(nullable = true) Failure lastFailure,
      @Schema(nullable = true) Rejection lastRejection,
      @Schema(description = "steps of the accepted generation, in plan order") List<Step> steps) {}

  public record Step(
      long generation,
      int ordinal,
      String kind,
      Integer gpu,
      String detail,
      long deadlineMillis,
      @Schema(description = "planned, started, succeeded or failed") String state,
      String reason,
      @Schema(description = "what blocked a failed step, e.g. nvidia-persistenced") String holder,
      Long elapsedMillis) {}

  public record Failure(long generation, String step, Integer gpu, String reason, String holder) {}

  public record Rejection(long generation, String code, String reason) {}
}
