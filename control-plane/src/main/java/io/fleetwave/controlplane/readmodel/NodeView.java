package io.fleetwave.controlplane.readmodel;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.fleetwave.controlplane.projection.NodeFacts;
import io.fleetwave.core.projection.ReconcileState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A node as the API shows it. Its facts ({@link NodeFacts}) are null until the node's first
 * NodeRegistered; {@code desiredGeneration} is null until the node's first spec; {@code
 * notConvergedReason} is null when {@code converged}. {@code revoked} is true while an admin's
 * revocation of the node stands ({@code revokedAt} and {@code revokedBy} say when and who; null
 * otherwise): it enrolls no key and no rollout includes it until it is re-admitted.
 *
 * <p>In full ({@link NodeListView#FULL}, and always for one node) it lists every GPU in {@code
 * gpus} and has no {@code gpuModels}; in a brief listing ({@link NodeListView#BRIEF}) it has {@code
 * gpuModels}, its GPUs counted by model, and no {@code gpus}. The absent one is left out of the
 * JSON, not null.
 */
// The facts in their place after the name, in the OpenAPI document as in the JSON: smallrye-openapi
// lists unwrapped properties in no particular order.
@JsonPropertyOrder({
  "name",
  "hostKind",
  "osId",
  "osVersion",
  "kernel",
  "readOnlyRoot",
  "systemd",
  "driverRoot",
  "deviceRoot",
  "driverProvider",
  "driverVersion",
  "zone",
  "labels",
  "reasons"
})
public record NodeView(
    String name,
    // Unwrapped: in the JSON each fact is a field of the node (hostKind, osId, ...).
    @JsonUnwrapped NodeFacts facts,
    Instant lastSeen,
    Long desiredGeneration,
    long appliedGeneration,
    boolean converged,
    String notConvergedReason,
    boolean revoked,
    Instant revokedAt,
    String revokedBy,
    @JsonInclude(JsonInclude.Include.NON_NULL) List<GpuView> gpus,
    @JsonInclude(JsonInclude.Include.NON_NULL) List<GpuModelView> gpuModels) {

  /**
   * A node as its own events show it: these facts, last seen then (null: never), these GPUs in
   * full, and nothing the control facts add ({@link #withControl}): no desired spec, none applied,
   * converged, not revoked.
   */
  public static NodeView observed(
      String name, NodeFacts facts, Instant lastSeen, List<GpuView> gpus) {
    return new NodeView(name, facts, lastSeen, null, 0, true, null, false, null, null, gpus, null);
  }

  /**
   * This node with what the control facts say of it: its desired generation (null: none), its
   * revocation (null {@code revokedAt}: admitted), and whether it converged from {@code reconcile}
   * (its reconcile state, null when it has none).
   */
  public NodeView withControl(
      Long desired, Instant revokedAt, String revokedBy, ReconcileState reconcile) {
    Convergence convergence = Convergence.of(desired, reconcile);
    return with(
        desired,
        reconcile == null ? 0 : reconcile.appliedGeneration(),
        convergence,
        revokedAt,
        revokedAt == null ? null : revokedBy,
        gpus,
        gpuModels);
  }

  /**
   * This node in the brief form of a listing: its GPUs counted by model (by PCI device id as
   * reported, in the order of each model's first GPU, the least product name), as the listing's
   * GROUP BY counts them, and no GPU list.
   */
  public NodeView brief() {
    Map<String, List<GpuView>> byModel = new LinkedHashMap<>();
    for (GpuView gpu : gpus) {
      byModel.computeIfAbsent(gpu.pciDeviceId(), model -> new ArrayList<>()).add(gpu);
    }
    List<GpuModelView> models = new ArrayList<>();
    byModel.forEach(
        (model, ofModel) ->
            models.add(
                new GpuModelView(
                    model,
                    ofModel.stream().map(GpuView::product).min(Comparator.naturalOrder()).get(),
                    ofModel.size(),
                    (int) ofModel.stream().filter(gpu -> "enabled".equals(gpu.migMode())).count(),
                    (int)
                        ofModel.stream().filter(gpu -> !"healthy".equals(gpu.health())).count())));
    return with(
        desiredGeneration,
        appliedGeneration,
        new Convergence(converged, notConvergedReason),
        revokedAt,
        revokedBy,
        null,
        models);
  }

  /** This node's facts with these control fields and this form of its GPUs. */
  private NodeView with(
      Long desired,
      long applied,
      Convergence convergence,
      Instant revokedAt,
      String revokedBy,
      List<GpuView> gpus,
      List<GpuModelView> gpuModels) {
    return new NodeView(
        name,
        facts,
        lastSeen,
        desired,
        applied,
        convergence.converged(),
        convergence.reason(),
        revokedAt != null,
        revokedAt,
        revokedBy,
        gpus,
        gpuModels);
  }

  public record GpuView(
      int index,
      String uuid,
      String pciBusId,
      String pciDeviceId,
      String product,
      long memoryMiB,
      boolean migCapable,
      String migMode,
      String migModePending,
      List<InstanceView> instances,
      int vfsTotal,
      int vfsEnabled,
      String health) {}

  /**
   * A node's GPUs of one model, counted (the brief listing).
   *
   * @param migEnabled of them in MIG mode ({@code migMode} enabled)
   * @param notHealthy of them whose health is not {@code healthy}
   */
  public record GpuModelView(
      String pciDeviceId, String product, int gpus, int migEnabled, int notHealthy) {}

  public record InstanceView(String profile, Placement placement) {}

  public record Placement(int start, int size) {}
}
