package io.fleetwave.agent.reconcile;

import io.fleetwave.agent.gpu.GpuProcess;
import io.fleetwave.agent.gpu.VirtualFunction;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.gpu.MigGeometry;
import io.fleetwave.events.gpu.MigPlacer;
import io.fleetwave.events.gpu.MigProfile;
import io.fleetwave.events.gpu.VgpuType;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.GpuSpecRules;
import io.fleetwave.events.spec.SpecViolation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What must happen to one GPU, decided once and handed out per phase. Validates the GPU's spec
 * against its model first: everything unplannable is found before any step is planned.
 */
final class GpuChange {
  private final Map<StepKind, List<Step>> byPhase = new HashMap<>();

  private GpuChange() {}

  static GpuChange between(
      ObservedGpu observed, GpuSpec wanted, GpuModel model, StepDeadlines deadlines)
      throws UnplannableSpecException {
    Gpu gpu = observed.gpu();
    int index = gpu.index();
    Map<Integer, VgpuType> vgpuTypes = validate(gpu, wanted, model);
    GpuChange change = new GpuChange();

    boolean migNow = gpu.migMode() == MigMode.ENABLED;
    boolean migPending = gpu.migModePending() == MigMode.ENABLED;
    boolean setMode = gpu.migCapable() && migPending != wanted.migEnabled();
    boolean modeChanges = gpu.migCapable() && migNow != wanted.migEnabled();
    // A mode change needs a reset where the model keeps it pending until one; an unknown model
    // is assumed to. A mode already pending (set earlier, never reset) needs one on any model.
    boolean reset = modeChanges && (!setMode || model == null || model.migModeChangeNeedsReset());

    int vfsNow = gpu.vfsEnabled();
    boolean disableVfs = vfsNow > 0 && (reset || vfsNow != wanted.vfs());
    int vfsAfterDisable = disableVfs ? 0 : vfsNow;
    boolean enableVfs = wanted.vfs() > 0 && vfsAfterDisable != wanted.vfs();
    boolean vfsChange = disableVfs || enableVfs;

    // Instances: kept only where nothing wipes them (rule 4 for VFs; a MIG mode change).
    List<GpuInstance> existing = migNow ? gpu.instances() : List.of();
    List<GpuInstance> kept = List.of();
    List<GpuInstance> created = List.of();
    if (wanted.migEnabled()) {
      MigGeometry geometry = model.mig();
      if (!vfsChange && !modeChanges) {
        kept = keep(existing, wanted.instances(), geometry);
        created = MigPlacer.place(geometry, kept, missing(wanted.instances(), kept)).orElse(null);
      }
      if (created == null || vfsChange || modeChanges) {
        kept = List.of();
        // GpuSpecRules placed the same instances on an empty GPU with the same placer already.
        created =
            MigPlacer.place(geometry, wanted.instances())
                .orElseThrow(
                    () ->
                        new IllegalStateException(
                            "GPU "
                                + index
                                + ": "
                                + wanted.instances()
                                + " passed the rules but"
                                + " was not placed"));
      }
    }
    List<GpuInstance> destroyed = new ArrayList<>(existing);
    destroyed.removeAll(kept);

    // vGPU types: VFs that stay keep their type where it is still wanted and still backed.
    Map<Integer, Integer> typeAfterTeardown = new TreeMap<>();
    if (!vfsChange) {
      for (VirtualFunction vf : observed.vfs()) {
        int current = vf.currentVgpuTypeId();
        if (current == 0) {
          continue;
        }
        VgpuType want = vgpuTypes.get(vf.index());
        // A MIG mode change leaves no current type valid (MIG-backed types need MIG, time-sliced
        // ones need it off); a destroyed instance may be the one backing a MIG-backed type.
        boolean backingMayGo = modeChanges || (!destroyed.isEmpty() && migBacked(model, current));
        if (want == null || want.id() != current || backingMayGo) {
          change.add(
              StepKind.CLEAR_VGPU_TYPE,
              new Step.ClearVgpuType(index, vf.index(), deadlines.of(StepKind.CLEAR_VGPU_TYPE)));
        } else {
          typeAfterTeardown.put(vf.index(), current);
        }
      }
    }

    if (!disableVfs) {
      for (GpuInstance instance : sorted(destroyed)) {
        change.add(
            StepKind.DESTROY_INSTANCE,
            new Step.DestroyInstance(
                index,
                instance.profile(),
                instance.placementStart(),
                deadlines.of(StepKind.DESTROY_INSTANCE)));
      }
    }
    if (disableVfs) {
      change.add(
          StepKind.DISABLE_VFS, new Step.DisableVfs(index, deadlines.of(StepKind.DISABLE_VFS)));
    }
    if (setMode) {
      change.add(
          StepKind.SET_MIG_MODE,
          new Step.SetMigMode(index, wanted.migEnabled(), deadlines.of(StepKind.SET_MIG_MODE)));
    }
    if (reset) {
      change.add(
          StepKind.RESET_GPU,
          new Step.ResetGpu(index, blockers(observed), deadlines.of(StepKind.RESET_GPU)));
    }
    if (enableVfs) {
      change.add(
          StepKind.ENABLE_VFS,
          new Step.EnableVfs(index, wanted.vfs(), deadlines.of(StepKind.ENABLE_VFS)));
    }
    for (GpuInstance instance : sorted(created)) {
      change.add(
          StepKind.CREATE_INSTANCE,
          new Step.CreateInstance(
              index,
              instance.profile(),
              instance.placementStart(),
              instance.placementSize(),
              deadlines.of(StepKind.CREATE_INSTANCE)));
    }
    vgpuTypes.forEach(
        (vf, type) -> {
          if (typeAfterTeardown.getOrDefault(vf, 0) != type.id()) {
            change.add(
                StepKind.SET_VGPU_TYPE,
                new Step.SetVgpuType(
                    index, vf, type.name(), type.id(), deadlines.of(StepKind.SET_VGPU_TYPE)));
          }
        });
    return change;
  }

  List<Step> steps(StepKind phase) {
    return byPhase.getOrDefault(phase, List.of());
  }

  private void add(StepKind phase, Step step) {
    byPhase.computeIfAbsent(phase, p -> new ArrayList<>()).add(step);
  }

  /** Existing instances of wanted profiles, up to the wanted count, lowest placement first. */
  private static List<GpuInstance> keep(
      List<GpuInstance> existing, Map<String, Integer> wanted, MigGeometry geometry) {
    Map<String, Integer> left = new HashMap<>(wanted);
    List<GpuInstance> kept = new ArrayList<>();
    for (GpuInstance instance : sorted(existing)) {
      Optional<MigProfile> profile =
          geometry.profiles().stream().filter(p -> p.name().equals(instance.profile())).findFirst();
      boolean valid =
          profile.isPresent()
              && profile.get().memorySlices() == instance.placementSize()
              && profile.get().starts().contains(instance.placementStart());
      int stillWanted = left.getOrDefault(instance.profile(), 0);
      if (valid && stillWanted > 0) {
        kept.add(instance);
        left.put(instance.profile(), stillWanted - 1);
      }
    }
    return kept;
  }

  private static Map<String, Integer> missing(Map<String, Integer> wanted, List<GpuInstance> kept) {
    Map<String, Integer> missing = new LinkedHashMap<>();
    wanted.forEach(
        (profile, count) -> {
          long have = kept.stream().filter(i -> i.profile().equals(profile)).count();
          if (count > have) {
            missing.put(profile, (int) (count - have));
          }
        });
    return missing;
  }

  private static List<GpuInstance> sorted(List<GpuInstance> instances) {
    return instances.stream()
        .sorted(
            Comparator.comparingInt(GpuInstance::placementStart)
                .thenComparing(GpuInstance::profile))
        .toList();
  }

  private static boolean migBacked(GpuModel model, int typeId) {
    // A type the catalogue does not know is treated as MIG-backed: clearing it is the safe side.
    return model == null
        || model.vgpuTypes().stream()
            .filter(t -> t.id() == typeId)
            .findFirst()
            .map(VgpuType::migBacked)
            .orElse(true);
  }

  private static List<String> blockers(ObservedGpu observed) {
    List<String> blockers = new ArrayList<>();
    for (GpuProcess process : observed.processes()) {
      blockers.add("compute process " + process.pid() + " (" + process.name() + ")");
    }
    blockers.addAll(observed.holders());
    return blockers;
  }

  /**
   * The spec's vGPU types resolved against the model, once the spec obeys every rule of {@link
   * GpuSpecRules} (the control plane's API checks the same rules and lists all violations; here the
   * first one is enough to refuse the spec).
   */
  private static Map<Integer, VgpuType> validate(Gpu gpu, GpuSpec wanted, GpuModel model)
      throws UnplannableSpecException {
    List<SpecViolation> violations =
        GpuSpecRules.check(
            model,
            new GpuSpecRules.GpuFacts(
                gpu.product(), gpu.pciDeviceId(), gpu.migCapable(), gpu.vfsTotal()),
            wanted);
    if (!violations.isEmpty()) {
      SpecViolation first = violations.getFirst();
      throw new UnplannableSpecException(
          "GPU " + gpu.index() + ": field '" + first.field() + "': " + first.message());
    }
    Map<Integer, VgpuType> types = new TreeMap<>();
    wanted.vgpuTypes().forEach((vf, name) -> types.put(vf, model.vgpuType(name).orElseThrow()));
    return types;
  }
}
