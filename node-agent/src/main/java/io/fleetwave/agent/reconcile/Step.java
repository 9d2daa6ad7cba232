package io.fleetwave.agent.reconcile;

import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.StepKind;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One step of a {@link Plan}: a single call into the GPU backend (or the device-plugin gate), with
 * the time it may take. Steps say what to do, never how; {@link StepExecutor} does it.
 */
public sealed interface Step permits Step.GpuStep, Step.HoldGate, Step.ReleaseGate {

  Duration deadline();

  /** What the step does, on the wire: one kind per record, listed so a new step cannot miss one. */
  default StepKind kind() {
    return switch (this) {
      case HoldGate s -> StepKind.HOLD_GATE;
      case ClearVgpuType s -> StepKind.CLEAR_VGPU_TYPE;
      case DestroyInstance s -> StepKind.DESTROY_INSTANCE;
      case DisableVfs s -> StepKind.DISABLE_VFS;
      case SetMigMode s -> StepKind.SET_MIG_MODE;
      case ResetGpu s -> StepKind.RESET_GPU;
      case EnableVfs s -> StepKind.ENABLE_VFS;
      case CreateInstance s -> StepKind.CREATE_INSTANCE;
      case SetVgpuType s -> StepKind.SET_VGPU_TYPE;
      case ReleaseGate s -> StepKind.RELEASE_GATE;
    };
  }

  /** The arguments, for people and for the progress events. */
  default String detail() {
    return switch (this) {
      case HoldGate s -> "hold the device-plugin gate";
      case ClearVgpuType s -> "clear the vGPU type of VF " + s.vf();
      case DestroyInstance s -> "destroy " + s.profile() + " at slice " + s.placementStart();
      case DisableVfs s -> "disable VFs";
      case SetMigMode s -> "MIG mode " + (s.enabled() ? "enabled" : "disabled");
      case ResetGpu s ->
          s.expectedBlockers().isEmpty()
              ? "targeted GPU reset"
              : "targeted GPU reset (held now by " + String.join(", ", s.expectedBlockers()) + ")";
      case EnableVfs s -> "enable " + s.count() + " VFs";
      case CreateInstance s -> "create " + s.profile() + " at slice " + s.placementStart();
      case SetVgpuType s -> "vGPU type " + s.typeName() + " (" + s.typeId() + ") on VF " + s.vf();
      case ReleaseGate s -> "release the device-plugin gate";
    };
  }

  /** The GPU acted on, or null for node-wide steps. */
  default Integer gpuIndex() {
    return this instanceof GpuStep step ? step.gpu() : null;
  }

  default PlannedStep describe(int ordinal) {
    return new PlannedStep(ordinal, kind(), gpuIndex(), detail(), deadline().toMillis());
  }

  /** A step on one GPU. */
  sealed interface GpuStep extends Step
      permits ClearVgpuType,
          DestroyInstance,
          DisableVfs,
          SetMigMode,
          ResetGpu,
          EnableVfs,
          CreateInstance,
          SetVgpuType {
    int gpu();
  }

  /** Hold the device-plugin gate before the node's GPUs change under a running device plugin. */
  record HoldGate(Duration deadline) implements Step {
    public HoldGate {
      positive(deadline);
    }
  }

  /** Remove a VF's vGPU type (before its GPU instance goes, or before another type is written). */
  record ClearVgpuType(int gpu, int vf, Duration deadline) implements GpuStep {
    public ClearVgpuType {
      positive(deadline);
    }
  }

  /** Destroy a GPU instance (with its compute instances) the spec does not keep. */
  record DestroyInstance(int gpu, String profile, int placementStart, Duration deadline)
      implements GpuStep {
    public DestroyInstance {
      Objects.requireNonNull(profile, "profile");
      positive(deadline);
    }
  }

  /** Disable SR-IOV VFs: before a reset (rule 2), or before enabling a different count. */
  record DisableVfs(int gpu, Duration deadline) implements GpuStep {
    public DisableVfs {
      positive(deadline);
    }
  }

  /** Set the MIG mode; on models that need it, it stays pending until {@link ResetGpu}. */
  record SetMigMode(int gpu, boolean enabled, Duration deadline) implements GpuStep {
    public SetMigMode {
      positive(deadline);
    }
  }

  /**
   * Targeted reset of one GPU, to make a pending MIG mode current.
   *
   * @param expectedBlockers what held the GPU when the plan was made (processes, handle holders):
   *     the executor will see the reset refused naming them unless they go away first
   */
  record ResetGpu(int gpu, List<String> expectedBlockers, Duration deadline) implements GpuStep {
    public ResetGpu {
      expectedBlockers = List.copyOf(expectedBlockers);
      positive(deadline);
    }
  }

  /** Enable SR-IOV VFs; destroys the GPU's instances (rule 4), so it comes before creating them. */
  record EnableVfs(int gpu, int count, Duration deadline) implements GpuStep {
    public EnableVfs {
      if (count <= 0) {
        throw new IllegalArgumentException("VF count must be positive: " + count);
      }
      positive(deadline);
    }
  }

  /** Create a GPU instance (and its default compute instance) at a chosen placement. */
  record CreateInstance(
      int gpu, String profile, int placementStart, int placementSize, Duration deadline)
      implements GpuStep {
    public CreateInstance {
      Objects.requireNonNull(profile, "profile");
      positive(deadline);
    }
  }

  /** Write a vGPU type to a VF. */
  record SetVgpuType(int gpu, int vf, String typeName, int typeId, Duration deadline)
      implements GpuStep {
    public SetVgpuType {
      Objects.requireNonNull(typeName, "typeName");
      positive(deadline);
    }
  }

  /** Release the device-plugin gate: last, once every GPU matches the spec. */
  record ReleaseGate(Duration deadline) implements Step {
    public ReleaseGate {
      positive(deadline);
    }
  }

  private static void positive(Duration deadline) {
    Objects.requireNonNull(deadline, "deadline");
    if (deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException("deadline must be positive: " + deadline);
    }
  }
}
