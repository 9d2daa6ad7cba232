package io.fleetwave.agent.reconcile;

import io.fleetwave.agent.gpu.VirtualFunction;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.gpu.MigProfile;
import io.fleetwave.events.gpu.VgpuType;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import io.fleetwave.testfixtures.events.GpuBuilder;
import java.io.Serial;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A small in-test model of a node: a pure fold of plan steps that enforces the rules of
 * hardware-model.md (not the simulator). A step the hardware would refuse throws {@link
 * HardwareRuleViolated}; compute processes and handle holders are not modelled here (the executor
 * tests cover refusals).
 */
final class NodeModel {
  static final class HardwareRuleViolated extends AssertionError {
    @Serial private static final long serialVersionUID = 1L;

    HardwareRuleViolated(String message) {
      super(message);
    }
  }

  private static final class GpuState {
    final ObservedGpu observed;
    final GpuModel model;
    MigMode migNow;
    MigMode migPending;
    List<GpuInstance> instances;
    int vfs;
    Map<Integer, Integer> vgpu = new TreeMap<>();

    GpuState(ObservedGpu observed, GpuModel model) {
      this.observed = observed;
      this.model = model;
      Gpu gpu = observed.gpu();
      this.migNow = gpu.migMode();
      this.migPending = gpu.migModePending();
      this.instances = new ArrayList<>(gpu.instances());
      this.vfs = gpu.vfsEnabled();
      for (VirtualFunction vf : observed.vfs()) {
        if (vf.currentVgpuTypeId() != 0) {
          vgpu.put(vf.index(), vf.currentVgpuTypeId());
        }
      }
    }

    void wipeInstancesAndTypes() {
      instances.clear();
      vgpu.clear();
    }
  }

  private final Map<Integer, GpuState> gpus = new TreeMap<>();
  private boolean gateReleased;

  /** For each create, the VFs enabled on its GPU at that moment. */
  final List<int[]> vfsAtCreate = new ArrayList<>();

  /** For each reset, the VFs enabled on its GPU at that moment. */
  final List<Integer> vfsAtReset = new ArrayList<>();

  NodeModel(ObservedNode node, GpuCatalog catalog) {
    for (ObservedGpu gpu : node.gpus()) {
      gpus.put(gpu.index(), new GpuState(gpu, catalog.find(gpu.gpu().pciDeviceId()).orElseThrow()));
    }
    gateReleased = node.gateReleased();
  }

  NodeModel apply(Plan plan) {
    plan.steps().forEach(this::apply);
    return this;
  }

  void apply(Step step) {
    switch (step) {
      case Step.HoldGate h -> gateReleased = false;
      case Step.ReleaseGate r -> gateReleased = true;
      case Step.ClearVgpuType s -> {
        GpuState g = gpu(s.gpu());
        require(s.vf() < g.vfs, s, "VF " + s.vf() + " is not enabled");
        g.vgpu.remove(s.vf());
      }
      case Step.DestroyInstance s -> {
        GpuState g = gpu(s.gpu());
        require(g.migNow == MigMode.ENABLED, s, "MIG is not enabled");
        boolean removed = g.instances.removeIf(i -> i.placementStart() == s.placementStart());
        require(removed, s, "no instance at slice " + s.placementStart());
      }
      case Step.DisableVfs s -> {
        GpuState g = gpu(s.gpu());
        require(g.vfs > 0, s, "VFs are already disabled");
        g.vfs = 0;
        g.wipeInstancesAndTypes(); // rule 4
      }
      case Step.SetMigMode s -> {
        GpuState g = gpu(s.gpu());
        require(g.observed.gpu().migCapable(), s, "not MIG capable");
        require(s.enabled() || g.instances.isEmpty(), s, "MIG cannot be disabled with instances");
        g.migPending = s.enabled() ? MigMode.ENABLED : MigMode.DISABLED;
        if (!g.model.migModeChangeNeedsReset() && g.migNow != g.migPending) {
          require(g.vgpu.isEmpty(), s, "vGPU types in use on the GPU's VFs");
          g.migNow = g.migPending;
          g.wipeInstancesAndTypes();
        }
      }
      case Step.ResetGpu s -> {
        GpuState g = gpu(s.gpu());
        vfsAtReset.add(g.vfs);
        require(g.vfs == 0, s, "reset refused: VFs enabled (rule 2)");
        g.migNow = g.migPending; // rule 1
        g.wipeInstancesAndTypes();
      }
      case Step.EnableVfs s -> {
        GpuState g = gpu(s.gpu());
        require(g.vfs == 0, s, "VFs must be disabled before another count is enabled");
        require(s.count() <= g.observed.gpu().vfsTotal(), s, "more VFs than the GPU has");
        g.vfs = s.count();
        g.wipeInstancesAndTypes(); // rule 4
      }
      case Step.CreateInstance s -> create(s);
      case Step.SetVgpuType s -> setVgpuType(s);
    }
  }

  private void create(Step.CreateInstance s) {
    GpuState g = gpu(s.gpu());
    vfsAtCreate.add(new int[] {s.gpu(), g.vfs});
    require(g.migNow == MigMode.ENABLED, s, "MIG is not currently enabled (rule 3)");
    MigProfile profile = g.model.profile(s.profile()).orElse(null);
    require(profile != null, s, "unknown profile");
    require(profile.starts().contains(s.placementStart()), s, "not a valid placement");
    require(profile.memorySlices() == s.placementSize(), s, "wrong placement size");
    int end = s.placementStart() + s.placementSize();
    require(end <= g.model.mig().memorySlices(), s, "past the last memory slice");
    for (GpuInstance other : g.instances) {
      int otherEnd = other.placementStart() + other.placementSize();
      require(
          end <= other.placementStart() || s.placementStart() >= otherEnd, s, "overlaps " + other);
    }
    int compute = profile.computeSlices();
    for (GpuInstance other : g.instances) {
      compute += g.model.profile(other.profile()).orElseThrow().computeSlices();
    }
    require(compute <= g.model.mig().computeSlices(), s, "out of compute slices");
    long same = g.instances.stream().filter(i -> i.profile().equals(s.profile())).count();
    require(same < profile.maxCount(), s, "more than " + profile.maxCount() + " of the profile");
    g.instances.add(new GpuInstance(s.profile(), s.placementStart(), s.placementSize()));
  }

  private void setVgpuType(Step.SetVgpuType s) {
    GpuState g = gpu(s.gpu());
    require(s.vf() < g.vfs, s, "VF not enabled");
    require(!g.vgpu.containsKey(s.vf()), s, "VF already has a type: clear it first");
    VgpuType type =
        g.model.vgpuTypes().stream().filter(t -> t.id() == s.typeId()).findFirst().orElse(null);
    require(type != null, s, "not a vGPU type of this model");
    if (type.migBacked()) {
      long instances =
          g.instances.stream().filter(i -> i.profile().equals(type.migProfile())).count();
      long users = g.vgpu.values().stream().filter(id -> id == type.id()).count();
      require(users < instances, s, "no free " + type.migProfile() + " instance (rule 5)");
    }
    g.vgpu.put(s.vf(), s.typeId());
  }

  /** Whether the node now is what the spec says, with the gate released. */
  List<String> mismatches(NodeSpec spec) {
    List<String> problems = new ArrayList<>();
    if (!gateReleased) {
      problems.add("gate held");
    }
    for (GpuSpec want : spec.gpus()) {
      GpuState g = gpu(want.index());
      String p = "GPU " + want.index() + ": ";
      if (g.observed.gpu().migCapable()) {
        MigMode mode = want.migEnabled() ? MigMode.ENABLED : MigMode.DISABLED;
        if (g.migNow != mode || g.migPending != mode) {
          problems.add(p + "MIG " + g.migNow + "/" + g.migPending + ", want " + mode);
        }
      }
      Map<String, Integer> counts = new TreeMap<>();
      g.instances.forEach(i -> counts.merge(i.profile(), 1, Integer::sum));
      if (!counts.equals(want.instances())) {
        problems.add(p + "instances " + counts + ", want " + want.instances());
      }
      if (g.vfs != want.vfs()) {
        problems.add(p + "VFs " + g.vfs + ", want " + want.vfs());
      }
      Map<Integer, Integer> types = new HashMap<>();
      want.vgpuTypes()
          .forEach((vf, name) -> types.put(vf, g.model.vgpuType(name).orElseThrow().id()));
      if (!types.equals(g.vgpu)) {
        problems.add(p + "vGPU types " + g.vgpu + ", want " + types);
      }
    }
    return problems;
  }

  /** The node as an agent would observe it now. */
  ObservedNode observe() {
    List<ObservedGpu> observed = new ArrayList<>();
    for (GpuState g : gpus.values()) {
      Gpu before = g.observed.gpu();
      Gpu now =
          GpuBuilder.from(before)
              .migMode(g.migNow)
              .migModePending(g.migPending)
              .instances(g.instances)
              .vfsEnabled(g.vfs)
              .build();
      List<Integer> creatable = g.model.vgpuTypes().stream().map(VgpuType::id).toList();
      List<VirtualFunction> vfs = new ArrayList<>();
      for (int vf = 0; vf < g.vfs; vf++) {
        vfs.add(
            new VirtualFunction(
                vf, before.pciBusId() + "." + vf, creatable, g.vgpu.getOrDefault(vf, 0)));
      }
      observed.add(new ObservedGpu(now, vfs, g.observed.processes(), g.observed.holders()));
    }
    return new ObservedNode(observed, gateReleased);
  }

  private GpuState gpu(int index) {
    GpuState g = gpus.get(index);
    if (g == null) {
      throw new HardwareRuleViolated("no GPU " + index);
    }
    return g;
  }

  private static void require(boolean ok, Step step, String why) {
    if (!ok) {
      throw new HardwareRuleViolated(step + ": " + why);
    }
  }
}
