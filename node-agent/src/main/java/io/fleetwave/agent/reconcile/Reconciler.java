package io.fleetwave.agent.reconcile;

import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The node reconciler: a pure function from (observed node, desired spec) to an ordered {@link
 * Plan}. It reads nothing and changes nothing; {@link StepExecutor} runs the plan.
 *
 * <p>Order. Each GPU's steps follow hardware-model.md rule 7, preceded by the teardown of what the
 * spec no longer wants:
 *
 * <ol>
 *   <li>hold the device-plugin gate, if it is released and anything will change;
 *   <li>clear vGPU types that change, and MIG-backed ones whose instance may go (VFs that stay);
 *   <li>destroy GPU instances that are not kept (skipped where disabling VFs wipes them anyway);
 *   <li>disable VFs, where a reset is needed (rule 2) or the VF count changes;
 *   <li>set the MIG mode;
 *   <li>targeted reset, where the model keeps the mode pending until one, or the mode is pending;
 *   <li>enable VFs (rule 4: this wipes instances, so it comes before creating them);
 *   <li>create GPU instances (with their compute instance) at first-fit placements;
 *   <li>write vGPU types (rule 5: after the instances that back them);
 *   <li>release the device-plugin gate, once, when everything matches (rule 6).
 * </ol>
 *
 * Steps are grouped by phase across GPUs (all MIG modes, then all resets, ...), so the order holds
 * per GPU and for the node as a whole. Instances the spec wants and that survive (no VF or MIG-mode
 * change) are kept where they are, unless the missing ones only fit after a fresh layout.
 *
 * <p>Idempotent: planning against the state the plan produces gives an empty plan. A reset is
 * planned even where processes or handle holders block it now; they are listed in the step, and the
 * executor fails the step naming them.
 */
public final class Reconciler {
  private final GpuCatalog catalog;
  private final StepDeadlines deadlines;

  public Reconciler(GpuCatalog catalog, StepDeadlines deadlines) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.deadlines = Objects.requireNonNull(deadlines, "deadlines");
  }

  /**
   * The plan that takes {@code observed} to {@code spec}.
   *
   * @throws UnplannableSpecException when the spec cannot be reached on this node; the message
   *     names the GPU and the field
   */
  public Plan plan(ObservedNode observed, NodeSpec spec) throws UnplannableSpecException {
    List<GpuChange> changes = new ArrayList<>();
    for (GpuSpec wanted : spec.gpus()) {
      ObservedGpu gpu =
          observed
              .gpu(wanted.index())
              .orElseThrow(
                  () ->
                      new UnplannableSpecException(
                          "GPU "
                              + wanted.index()
                              + ": not present on this node (it has "
                              + observed.gpus().size()
                              + " GPUs)"));
      GpuModel model = catalog.find(gpu.gpu().pciDeviceId()).orElse(null);
      changes.add(GpuChange.between(gpu, wanted, model, deadlines));
    }

    List<Step> gpuSteps = new ArrayList<>();
    for (StepKind phase : StepKind.values()) {
      for (GpuChange change : changes) {
        gpuSteps.addAll(change.steps(phase));
      }
    }

    List<Step> steps = new ArrayList<>();
    boolean holdGate =
        !gpuSteps.isEmpty()
            && observed.gateReleased()
            && spec.gate() == GatePolicy.HOLD_UNTIL_APPLIED;
    if (holdGate) {
      steps.add(new Step.HoldGate(deadlines.of(StepKind.HOLD_GATE)));
    }
    steps.addAll(gpuSteps);
    if (holdGate || !observed.gateReleased()) {
      steps.add(new Step.ReleaseGate(deadlines.of(StepKind.RELEASE_GATE)));
    }
    return new Plan(spec.generation(), steps);
  }
}
