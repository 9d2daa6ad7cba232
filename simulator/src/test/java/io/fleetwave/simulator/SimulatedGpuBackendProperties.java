package io.fleetwave.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.agent.gpu.GpuOperationException;
import io.fleetwave.agent.gpu.VirtualFunction;
import io.fleetwave.agent.modules.ModuleBusyException;
import io.fleetwave.agent.modules.ModuleException;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.gpu.MigGeometry;
import io.fleetwave.events.gpu.MigProfile;
import io.fleetwave.events.gpu.VgpuType;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.MigMode;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Random operation sequences against the simulator: every refusal real hardware makes is made,
 * every success leaves a state real hardware could be in (checked after every step).
 */
class SimulatedGpuBackendProperties {
  private static final int GPUS = 2;
  private static final List<String> HOLDERS = List.of("nvidia-persistenced", "nv-hostengine");

  /** One operation; the ints are reduced modulo what the model offers. */
  sealed interface Op {}

  record SetMig(int gpu, boolean enabled) implements Op {}

  record Reset(int gpu) implements Op {}

  record CreateAt(int gpu, int profile, int start) implements Op {}

  record CreateAny(int gpu, int profile) implements Op {}

  record Destroy(int gpu, int start) implements Op {}

  record SetVfs(int gpu, int count) implements Op {}

  record SetVgpu(int gpu, int vf, int type) implements Op {}

  record StartProcess(int gpu) implements Op {}

  record StopProcess(int gpu) implements Op {}

  record Hold(int gpu, int holder) implements Op {}

  record Release(int gpu, int holder) implements Op {}

  record Unload(int module) implements Op {}

  record Load(int module) implements Op {}

  record Reboot() implements Op {}

  @Provide
  Arbitrary<String> models() {
    return Arbitraries.of(
        "A100-40GB", "A100-80GB", "H100-80GB", "H200", "B200", "RTX-PRO-6000", "L4", "L40S", "T4");
  }

  @Provide
  Arbitrary<String> sriovModels() {
    return Arbitraries.of("H100-80GB", "H200", "B200", "L4", "L40S");
  }

  @Provide
  Arbitrary<List<Op>> operations() {
    Arbitrary<Integer> gpu = Arbitraries.integers().between(0, GPUS - 1);
    Arbitrary<Integer> small = Arbitraries.integers().between(0, 11);
    Arbitrary<Integer> slice = Arbitraries.integers().between(-1, 8);
    Arbitrary<Op> op =
        Arbitraries.frequencyOf(
            List.of(
                weighted(4, Combinators.combine(gpu, Arbitraries.of(true, false)).as(SetMig::new)),
                weighted(3, gpu.map(Reset::new)),
                weighted(8, Combinators.combine(gpu, small, slice).as(CreateAt::new)),
                weighted(5, Combinators.combine(gpu, small).as(CreateAny::new)),
                weighted(3, Combinators.combine(gpu, slice).as(Destroy::new)),
                weighted(
                    3,
                    Combinators.combine(gpu, Arbitraries.integers().between(0, 4)).as(SetVfs::new)),
                weighted(
                    5,
                    Combinators.combine(gpu, Arbitraries.integers().between(0, 4), small)
                        .as(SetVgpu::new)),
                weighted(2, gpu.map(StartProcess::new)),
                weighted(2, gpu.map(StopProcess::new)),
                weighted(
                    2,
                    Combinators.combine(gpu, Arbitraries.integers().between(0, 1)).as(Hold::new)),
                weighted(
                    2,
                    Combinators.combine(gpu, Arbitraries.integers().between(0, 1))
                        .as(Release::new)),
                weighted(2, Arbitraries.integers().between(0, 4).map(Unload::new)),
                weighted(1, Arbitraries.integers().between(0, 4).map(Load::new)),
                weighted(1, Arbitraries.just(new Reboot()))));
    return op.list().ofMinSize(1).ofMaxSize(40);
  }

  private static net.jqwik.api.Tuple.Tuple2<Integer, Arbitrary<Op>> weighted(
      int weight, Arbitrary<? extends Op> arbitrary) {
    return net.jqwik.api.Tuple.of(weight, arbitrary.map(op -> (Op) op));
  }

  @Property(tries = 400)
  void everyOperationObeysTheHardwareRules(
      @ForAll("models") String modelName, @ForAll("operations") List<Op> operations) {
    GpuModel model = GpuCatalog.bundled().find(modelName).orElseThrow();
    SimulatedGpuBackend backend = backend(model, model.sriovCapable());
    for (Op op : operations) {
      step(backend, model, op);
      assertInvariants(backend, model);
    }
  }

  @Property(tries = 200)
  void resetWithVfsEnabledIsRefused(
      @ForAll("sriovModels") String modelName,
      @ForAll("operations") List<Op> before,
      @ForAll @IntRange(min = 1, max = 16) int vfs) {
    GpuModel model = GpuCatalog.bundled().find(modelName).orElseThrow();
    SimulatedGpuBackend backend = quietAfter(model, before);
    backend.setVfsEnabled(0, vfs);
    assertThatThrownBy(() -> backend.resetGpu(0))
        .isInstanceOfSatisfying(
            GpuOperationException.class,
            e -> assertThat(e.holder()).isEqualTo(vfs + " SR-IOV VFs enabled"));
  }

  @Property(tries = 200)
  void sriovTogglesWipeInstances(
      @ForAll("sriovModels") String modelName,
      @ForAll("operations") List<Op> before,
      @ForAll @IntRange(min = 1, max = 16) int vfs) {
    GpuModel model = GpuCatalog.bundled().find(modelName).orElseThrow();
    SimulatedGpuBackend backend = quietAfter(model, before);
    if (model.migCapable()) {
      backend.setMigMode(0, true);
      backend.createGpuInstance(0, model.mig().profiles().getFirst().name());
    }
    List<GpuInstance> otherGpu = backend.inventory().get(1).instances();

    backend.setVfsEnabled(0, vfs);

    assertThat(backend.inventory().get(0).instances()).isEmpty();
    assertThat(backend.inventory().get(1).instances()).isEqualTo(otherGpu);
  }

  @Property(tries = 200)
  void pendingMigModeIsNotCurrentUntilResetOnAmpere(
      @ForAll("ampere") String modelName,
      @ForAll @Size(min = 1, max = 10) List<Boolean> modeChanges) {
    GpuModel model = GpuCatalog.bundled().find(modelName).orElseThrow();
    SimulatedGpuBackend backend = backend(model, false);
    for (boolean enabled : modeChanges) {
      backend.setMigMode(0, enabled);
      assertThat(backend.inventory().get(0).migMode()).isEqualTo(MigMode.DISABLED);
      assertThat(backend.inventory().get(0).migModePending()).isEqualTo(mode(enabled));
    }
    backend.resetGpu(0);
    assertThat(backend.inventory().get(0).migMode()).isEqualTo(mode(modeChanges.getLast()));
  }

  @Provide
  Arbitrary<String> ampere() {
    return Arbitraries.of("A100-40GB", "A100-80GB");
  }

  @Property(tries = 200)
  void moduleUnloadWithHoldersFails(
      @ForAll("models") String modelName,
      @ForAll @IntRange(min = 0, max = GPUS - 1) int gpu,
      @ForAll boolean process,
      @ForAll @IntRange(min = 0, max = 1) int holder) {
    GpuModel model = GpuCatalog.bundled().find(modelName).orElseThrow();
    SimulatedGpuBackend backend = backend(model, false);
    for (String module : List.of("nvidia_drm", "nvidia_modeset", "nvidia_peermem")) {
      backend.unloadModule(module);
    }
    String expectedHolder;
    if (process) {
      long pid = backend.startProcess(gpu, "job");
      expectedHolder = "process job (pid " + pid + ") on GPU " + gpu;
      assertThatThrownBy(() -> backend.unloadModule("nvidia_uvm"))
          .isInstanceOfSatisfying(
              ModuleBusyException.class,
              e -> assertThat(e.holders()).containsExactly(expectedHolder));
      backend.stopProcess(gpu, pid);
      backend.unloadModule("nvidia_uvm");
      backend.holdHandle(gpu, HOLDERS.get(holder));
    } else {
      backend.unloadModule("nvidia_uvm");
      backend.holdHandle(gpu, HOLDERS.get(holder));
    }
    assertThatThrownBy(() -> backend.unloadModule("nvidia"))
        .isInstanceOfSatisfying(
            ModuleBusyException.class,
            e -> assertThat(e.holders()).containsExactly(HOLDERS.get(holder) + " on GPU " + gpu));
    assertThat(backend.loadedModules()).contains("nvidia");
  }

  // ---- one step with the rule each refusal or success must follow -----------------------------

  private static void step(SimulatedGpuBackend backend, GpuModel model, Op op) {
    List<Gpu> before = backend.inventory();
    int refcountNvidia = backend.moduleRefcount("nvidia");
    try {
      apply(backend, model, op);
      checkSuccess(backend, model, op, before);
    } catch (GpuOperationException | ModuleException e) {
      assertThat(backend.inventory()).as("a refused %s changes nothing", op).isEqualTo(before);
      assertThat(backend.moduleRefcount("nvidia")).isEqualTo(refcountNvidia);
    }
    checkRequiredRefusals(backend, model, op, before);
  }

  private static void apply(SimulatedGpuBackend backend, GpuModel model, Op op) {
    switch (op) {
      case SetMig(int gpu, boolean enabled) -> backend.setMigMode(gpu, enabled);
      case Reset(int gpu) -> backend.resetGpu(gpu);
      case CreateAt(int gpu, int profile, int start) ->
          backend.createGpuInstance(gpu, profileName(model, profile), start);
      case CreateAny(int gpu, int profile) ->
          backend.createGpuInstance(gpu, profileName(model, profile));
      case Destroy(int gpu, int start) -> backend.destroyGpuInstance(gpu, start);
      case SetVfs(int gpu, int count) -> backend.setVfsEnabled(gpu, count);
      case SetVgpu(int gpu, int vf, int type) ->
          backend.setVgpuType(
              gpu, vf, type >= model.vgpuTypes().size() ? 0 : model.vgpuTypes().get(type).id());
      case StartProcess(int gpu) -> backend.startProcess(gpu, "job");
      case StopProcess(int gpu) ->
          backend.computeProcesses(gpu).stream()
              .findFirst()
              .ifPresent(p -> backend.stopProcess(gpu, p.pid()));
      case Hold(int gpu, int holder) -> backend.holdHandle(gpu, HOLDERS.get(holder));
      case Release(int gpu, int holder) -> backend.releaseHandle(gpu, HOLDERS.get(holder));
      case Unload(int module) -> backend.unloadModule(module(module));
      case Load(int module) -> backend.loadModule(module(module));
      case Reboot() -> backend.reboot();
    }
  }

  /** What must be true after a step that succeeded. */
  private static void checkSuccess(
      SimulatedGpuBackend backend, GpuModel model, Op op, List<Gpu> before) {
    List<Gpu> after = backend.inventory();
    switch (op) {
      case Reset(int gpu) -> {
        assertThat(before.get(gpu).vfsEnabled()).as("reset with VFs").isZero();
        assertThat(after.get(gpu).migMode()).isEqualTo(after.get(gpu).migModePending());
        assertOthersUnchanged(before, after, gpu);
      }
      case SetVfs(int gpu, int count) -> {
        if (count != before.get(gpu).vfsEnabled()) {
          assertThat(after.get(gpu).instances()).as("SR-IOV toggle wipes instances").isEmpty();
        }
        assertOthersUnchanged(before, after, gpu);
      }
      case SetMig(int gpu, boolean enabled) -> {
        if (model.migModeChangeNeedsReset()) {
          assertThat(after.get(gpu).migMode()).isEqualTo(before.get(gpu).migMode());
        } else {
          assertThat(after.get(gpu).migMode()).isEqualTo(mode(enabled));
        }
        assertThat(after.get(gpu).migModePending()).isEqualTo(mode(enabled));
      }
      case CreateAt(int gpu, int profile, int start) -> {
        MigProfile p = model.profile(profileName(model, profile)).orElseThrow();
        assertThat(p.starts()).contains(start);
        assertThat(before.get(gpu).migMode()).isEqualTo(MigMode.ENABLED);
      }
      case CreateAny(int gpu, int profile) ->
          assertThat(before.get(gpu).migMode()).isEqualTo(MigMode.ENABLED);
      default -> {}
    }
  }

  /** Refusals that must have happened, whatever the simulator did. */
  private static void checkRequiredRefusals(
      SimulatedGpuBackend backend, GpuModel model, Op op, List<Gpu> before) {
    List<Gpu> after = backend.inventory();
    switch (op) {
      case CreateAt(int gpu, int profile, int start) -> {
        if (!model.migCapable() || before.get(gpu).migMode() != MigMode.ENABLED) {
          assertThat(after.get(gpu).instances()).isEqualTo(before.get(gpu).instances());
        } else {
          MigProfile p = model.profile(profileName(model, profile)).orElseThrow();
          long existing =
              before.get(gpu).instances().stream()
                  .filter(i -> i.profile().equals(p.name()))
                  .count();
          if (!p.starts().contains(start) || existing >= p.maxCount()) {
            assertThat(after.get(gpu).instances())
                .as("%s outside placements or beyond the count", op)
                .isEqualTo(before.get(gpu).instances());
          }
        }
      }
      default -> {}
    }
  }

  private static void assertOthersUnchanged(List<Gpu> before, List<Gpu> after, int gpu) {
    for (int i = 0; i < before.size(); i++) {
      if (i != gpu) {
        assertThat(after.get(i)).as("GPU %d untouched", i).isEqualTo(before.get(i));
      }
    }
  }

  /** Holds after every step, whatever happened. */
  private static void assertInvariants(SimulatedGpuBackend backend, GpuModel model) {
    for (Gpu gpu : backend.inventory()) {
      if (!model.migCapable()) {
        assertThat(gpu.migMode()).isEqualTo(MigMode.UNSUPPORTED);
        assertThat(gpu.instances()).isEmpty();
      } else {
        if (gpu.migMode() == MigMode.DISABLED) {
          assertThat(gpu.instances()).as("instances only with MIG enabled").isEmpty();
        }
        assertGeometry(gpu, model.mig());
      }
      assertThat(gpu.vfsEnabled()).isBetween(0, gpu.vfsTotal());
      assertVgpus(backend, model, gpu);
    }
  }

  private static void assertGeometry(Gpu gpu, MigGeometry geometry) {
    boolean[] used = new boolean[geometry.memorySlices()];
    int compute = 0;
    int mediaExtensions = 0;
    for (GpuInstance instance : gpu.instances()) {
      MigProfile profile =
          geometry.profiles().stream()
              .filter(p -> p.name().equals(instance.profile()))
              .findFirst()
              .orElseThrow();
      assertThat(profile.starts()).contains(instance.placementStart());
      assertThat(instance.placementSize()).isEqualTo(profile.memorySlices());
      for (int s = instance.placementStart();
          s < instance.placementStart() + profile.memorySlices();
          s++) {
        assertThat(s).isLessThan(geometry.memorySlices());
        assertThat(used[s])
            .as("overlapping placements at slice %d: %s", s, gpu.instances())
            .isFalse();
        used[s] = true;
      }
      compute += profile.computeSlices();
      mediaExtensions += profile.mediaExtensions() ? 1 : 0;
    }
    assertThat(compute).isLessThanOrEqualTo(geometry.computeSlices());
    assertThat(mediaExtensions).isLessThanOrEqualTo(1);
    Map<String, Long> counts =
        gpu.instances().stream()
            .collect(Collectors.groupingBy(GpuInstance::profile, Collectors.counting()));
    counts.forEach(
        (name, count) ->
            assertThat(count)
                .isLessThanOrEqualTo(
                    geometry.profiles().stream()
                        .filter(p -> p.name().equals(name))
                        .findFirst()
                        .orElseThrow()
                        .maxCount()));
  }

  private static void assertVgpus(SimulatedGpuBackend backend, GpuModel model, Gpu gpu) {
    List<VirtualFunction> vfs = backend.virtualFunctions(gpu.index());
    assertThat(vfs).hasSize(gpu.vfsEnabled());
    Map<Integer, VgpuType> types =
        model.vgpuTypes().stream().collect(Collectors.toMap(VgpuType::id, t -> t));
    Map<VgpuType, Long> placed =
        vfs.stream()
            .filter(vf -> vf.currentVgpuTypeId() != 0)
            .collect(
                Collectors.groupingBy(
                    vf -> types.get(vf.currentVgpuTypeId()), Collectors.counting()));
    placed.forEach(
        (type, count) -> {
          assertThat(type).isNotNull();
          if (type.migBacked()) {
            long instances =
                gpu.instances().stream().filter(i -> i.profile().equals(type.migProfile())).count();
            assertThat(count)
                .as("each MIG-backed vGPU has its own instance")
                .isLessThanOrEqualTo(instances);
          } else {
            assertThat(count).isLessThanOrEqualTo(type.maxPerGpu());
            assertThat(gpu.migMode()).isNotEqualTo(MigMode.ENABLED);
          }
        });
    assertThat(placed.keySet().stream().filter(t -> !t.migBacked()).count())
        .as("one time-sliced type per GPU")
        .isLessThanOrEqualTo(1);
    for (VirtualFunction vf : vfs) {
      if (vf.currentVgpuTypeId() != 0) {
        assertThat(vf.creatableVgpuTypeIds()).isEmpty();
      }
    }
  }

  /** Undoes whatever a random prefix left on one GPU: vGPUs, VFs, instances, users, modules. */
  private static void quiesce(SimulatedGpuBackend backend, int gpu) {
    SimulatedKernelModules.DEPENDENCIES.keySet().forEach(backend::loadModule);
    for (int vf = 0; vf < backend.virtualFunctions(gpu).size(); vf++) {
      backend.setVgpuType(gpu, vf, 0);
    }
    backend.setVfsEnabled(gpu, 0);
    backend.computeProcesses(gpu).forEach(p -> backend.stopProcess(gpu, p.pid()));
    backend.handleHolders(gpu).forEach(h -> backend.releaseHandle(gpu, h));
    backend
        .inventory()
        .get(gpu)
        .instances()
        .forEach(i -> backend.destroyGpuInstance(gpu, i.placementStart()));
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /** A backend of {@code model} with the vGPU driver, after {@code before}, its GPU 0 quiet. */
  private static SimulatedGpuBackend quietAfter(GpuModel model, List<Op> before) {
    SimulatedGpuBackend backend = backend(model, true);
    before.forEach(op -> step(backend, model, op));
    quiesce(backend, 0);
    return backend;
  }

  private static SimulatedGpuBackend backend(GpuModel model, boolean vgpuDriver) {
    return new SimulatedGpuBackend(
        "prop-node", "580.95.05", Collections.nCopies(GPUS, model), vgpuDriver);
  }

  private static String profileName(GpuModel model, int index) {
    if (!model.migCapable()) {
      return "1g.10gb";
    }
    List<MigProfile> profiles = model.mig().profiles();
    return profiles.get(index % profiles.size()).name();
  }

  private static String module(int index) {
    return List.copyOf(SimulatedKernelModules.DEPENDENCIES.keySet()).get(index);
  }

  private static MigMode mode(boolean enabled) {
    return enabled ? MigMode.ENABLED : MigMode.DISABLED;
  }
}
