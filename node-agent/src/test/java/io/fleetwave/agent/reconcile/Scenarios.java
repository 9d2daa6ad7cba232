package io.fleetwave.agent.reconcile;

import io.fleetwave.agent.gpu.GpuProcess;
import io.fleetwave.agent.gpu.VirtualFunction;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.gpu.MigProfile;
import io.fleetwave.events.gpu.VgpuType;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import io.fleetwave.testfixtures.events.GpuBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.IntUnaryOperator;

/**
 * Random observed nodes (any catalogue model, any MIG mode, pending or not, valid instance layouts,
 * VFs and vGPU types, processes and holders) and random valid specs for them. Layouts are built by
 * dropping random instances at random valid placements, so they fit by construction, independently
 * of the packer under test.
 */
final class Scenarios {
  static final GpuCatalog CATALOG = GpuCatalog.bundled();
  private static final int MAX_VFS = 6; // enough to exercise every rule, small enough to read

  record Scenario(ObservedNode observed, NodeSpec spec) {}

  private Scenarios() {}

  static Scenario random(Random random) {
    List<GpuModel> models = CATALOG.models();
    int count = 1 + random.nextInt(4);
    List<ObservedGpu> gpus = new ArrayList<>();
    List<GpuSpec> specs = new ArrayList<>();
    for (int index = 0; index < count; index++) {
      GpuModel model = models.get(random.nextInt(models.size()));
      gpus.add(observed(random, index, model));
      if (random.nextInt(5) > 0) {
        specs.add(spec(random, index, model));
      }
    }
    GatePolicy gate = random.nextInt(4) == 0 ? GatePolicy.OPEN : GatePolicy.HOLD_UNTIL_APPLIED;
    return new Scenario(
        new ObservedNode(gpus, random.nextBoolean()),
        new NodeSpec("node-" + random.nextInt(100), 1 + random.nextInt(1000), null, specs, gate));
  }

  private static ObservedGpu observed(Random random, int index, GpuModel model) {
    MigMode now = MigMode.UNSUPPORTED;
    MigMode pending = MigMode.UNSUPPORTED;
    List<GpuInstance> instances = List.of();
    if (model.migCapable()) {
      now = random.nextBoolean() ? MigMode.ENABLED : MigMode.DISABLED;
      // A pending change is the normal case only on models that need a reset to apply it.
      boolean pendingChange = random.nextInt(model.migModeChangeNeedsReset() ? 3 : 8) == 0;
      pending = pendingChange ? flip(now) : now;
      if (now == MigMode.ENABLED) {
        instances = layout(random, model);
      }
    }
    int vfsEnabled =
        model.sriovCapable() ? random.nextInt(Math.min(MAX_VFS, model.sriovVfs()) + 1) : 0;
    List<Integer> ids = model.vgpuTypes().stream().map(VgpuType::id).toList();
    List<VirtualFunction> vfs =
        vfs(
            model,
            index,
            vfsEnabled,
            vf -> ids.isEmpty() || random.nextBoolean() ? 0 : ids.get(random.nextInt(ids.size())));
    List<GpuProcess> processes =
        random.nextInt(4) == 0 ? List.of(new GpuProcess(4711, "python", 1024)) : List.of();
    List<String> holders = random.nextInt(4) == 0 ? List.of("nvidia-persistenced") : List.of();
    Gpu gpu = gpu(model, index, now, pending).instances(instances).vfsEnabled(vfsEnabled).build();
    return new ObservedGpu(gpu, vfs, processes, holders);
  }

  /**
   * The inventory record of the GPU at index as these tests observe one: uuid GPU-{index}, PCI bus
   * 0000:0{index}:00.0, MIG mode now and pending; the caller adds instances and VFs.
   */
  static GpuBuilder gpu(GpuModel model, int index, MigMode now, MigMode pending) {
    return GpuBuilder.of(model, index)
        .uuid("GPU-" + index)
        .pciBusId("0000:0" + index + ":00.0")
        .migMode(now)
        .migModePending(pending);
  }

  /**
   * The GPU's enabled VFs, on the PCI functions after its own, each able to take every vGPU type of
   * the model and holding the one {@code current} gives it (0: none).
   */
  static List<VirtualFunction> vfs(
      GpuModel model, int index, int enabled, IntUnaryOperator current) {
    List<Integer> creatable = model.vgpuTypes().stream().map(VgpuType::id).toList();
    List<VirtualFunction> vfs = new ArrayList<>();
    for (int vf = 0; vf < enabled; vf++) {
      vfs.add(
          new VirtualFunction(
              vf, "0000:0" + index + ":00." + (vf + 1), creatable, current.applyAsInt(vf)));
    }
    return vfs;
  }

  private static GpuSpec spec(Random random, int index, GpuModel model) {
    boolean mig = model.migCapable() && random.nextBoolean();
    Map<String, Integer> instances = new TreeMap<>();
    if (mig) {
      for (GpuInstance instance : layout(random, model)) {
        instances.merge(instance.profile(), 1, Integer::sum);
      }
    }
    int vfs = model.sriovCapable() ? random.nextInt(Math.min(MAX_VFS, model.sriovVfs()) + 1) : 0;
    Map<Integer, String> types = new TreeMap<>();
    Map<String, Integer> used = new HashMap<>();
    for (int vf = 0; vf < vfs; vf++) {
      if (random.nextBoolean()) {
        continue;
      }
      List<VgpuType> fitting = new ArrayList<>();
      for (VgpuType type : model.vgpuTypes()) {
        int limit =
            type.migBacked()
                ? (mig ? instances.getOrDefault(type.migProfile(), 0) : 0)
                : (mig ? 0 : type.maxPerGpu());
        if (used.getOrDefault(type.name(), 0) < limit) {
          fitting.add(type);
        }
      }
      if (!fitting.isEmpty()) {
        VgpuType type = fitting.get(random.nextInt(fitting.size()));
        used.merge(type.name(), 1, Integer::sum);
        types.put(vf, type.name());
      }
    }
    return new GpuSpec(index, mig, instances, vfs, types);
  }

  /** A random valid layout: random profiles dropped at random free placements. */
  static List<GpuInstance> layout(Random random, GpuModel model) {
    List<MigProfile> profiles = model.mig().profiles();
    boolean[] used = new boolean[model.mig().memorySlices()];
    int compute = 0;
    List<GpuInstance> placed = new ArrayList<>();
    int attempts = random.nextInt(12);
    for (int i = 0; i < attempts; i++) {
      MigProfile profile = profiles.get(random.nextInt(profiles.size()));
      int start = profile.starts().get(random.nextInt(profile.starts().size()));
      // The count rules are per geometry kind (aliased names share one) and one +me instance.
      long sameKind =
          placed.stream()
              .filter(p -> model.profile(p.profile()).orElseThrow().kind().equals(profile.kind()))
              .count();
      boolean secondMediaExtension =
          profile.mediaExtensions()
              && placed.stream()
                  .anyMatch(p -> model.profile(p.profile()).orElseThrow().mediaExtensions());
      if (start + profile.memorySlices() > used.length
          || compute + profile.computeSlices() > model.mig().computeSlices()
          || sameKind >= profile.maxCount()
          || secondMediaExtension) {
        continue;
      }
      boolean free = true;
      for (int s = start; s < start + profile.memorySlices(); s++) {
        free &= !used[s];
      }
      if (!free) {
        continue;
      }
      for (int s = start; s < start + profile.memorySlices(); s++) {
        used[s] = true;
      }
      compute += profile.computeSlices();
      placed.add(new GpuInstance(profile.name(), start, profile.memorySlices()));
    }
    return placed;
  }

  private static MigMode flip(MigMode mode) {
    return mode == MigMode.ENABLED ? MigMode.DISABLED : MigMode.ENABLED;
  }
}
