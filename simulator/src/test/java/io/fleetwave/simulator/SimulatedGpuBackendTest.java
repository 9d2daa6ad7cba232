package io.fleetwave.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.agent.gpu.GpuOperationException;
import io.fleetwave.agent.modules.ModuleBusyException;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.MigMode;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SimulatedGpuBackendTest {

  static GpuModel model(String name) {
    return GpuCatalog.bundled().find(name).orElseThrow();
  }

  static SimulatedGpuBackend node(String model, int count, boolean vgpuDriver) {
    return new SimulatedGpuBackend(
        "node-1", "580.95.05", Collections.nCopies(count, model(model)), vgpuDriver);
  }

  static Gpu gpu(SimulatedGpuBackend backend, int index) {
    return backend.inventory().get(index);
  }

  @Nested
  class MigMode_ {
    @Test
    void ampereMigModeStaysPendingUntilReset() {
      SimulatedGpuBackend a100 = node("A100-40GB", 2, false);
      a100.setMigMode(0, true);

      assertThat(gpu(a100, 0).migMode()).isEqualTo(MigMode.DISABLED);
      assertThat(gpu(a100, 0).migModePending()).isEqualTo(MigMode.ENABLED);
      assertThatThrownBy(() -> a100.createGpuInstance(0, "1g.5gb"))
          .isInstanceOf(GpuOperationException.class)
          .hasMessage(
              "GPU 0: create GPU instance 1g.5gb failed: MIG mode is not currently enabled"
                  + " (enabled is pending until a GPU reset)");

      a100.resetGpu(0);
      assertThat(gpu(a100, 0).migMode()).isEqualTo(MigMode.ENABLED);
    }

    @Test
    void hopperMigModeTakesEffectAtOnce() {
      SimulatedGpuBackend h100 = node("H100-80GB", 1, false);
      h100.setMigMode(0, true);
      assertThat(gpu(h100, 0).migMode()).isEqualTo(MigMode.ENABLED);
      assertThat(gpu(h100, 0).migModePending()).isEqualTo(MigMode.ENABLED);
    }

    @Test
    void hopperMigModeChangeIsRefusedWhileAProcessRuns() {
      SimulatedGpuBackend h200 = node("H200", 1, false);
      long pid = h200.startProcess(0, "python");
      assertThatThrownBy(() -> h200.setMigMode(0, true))
          .isInstanceOfSatisfying(
              GpuOperationException.class,
              e -> assertThat(e.holder()).isEqualTo("process python (pid " + pid + ")"))
          .hasMessageContaining("GPU is in use by process python");
      assertThat(gpu(h200, 0).migModePending()).isEqualTo(MigMode.DISABLED);
    }

    @Test
    void nonMigGpusRefuseMig() {
      SimulatedGpuBackend l4 = node("L4", 1, false);
      assertThatThrownBy(() -> l4.setMigMode(0, true))
          .hasMessage("GPU 0: set MIG mode enabled failed: NVIDIA L4 is not MIG capable");
      assertThatThrownBy(() -> l4.createGpuInstance(0, "1g.24gb"))
          .hasMessage("GPU 0: create GPU instance 1g.24gb failed: NVIDIA L4 is not MIG capable");
      assertThat(gpu(l4, 0).migMode()).isEqualTo(MigMode.UNSUPPORTED);
    }

    @Test
    void migModeCannotBeDisabledWhileInstancesExist() {
      SimulatedGpuBackend h100 = migEnabled("H100-80GB");
      h100.createGpuInstance(0, "3g.40gb");
      assertThatThrownBy(() -> h100.setMigMode(0, false))
          .hasMessage(
              "GPU 0: set MIG mode disabled failed: 1 GPU instances exist; destroy them first");
    }

    /** As a person with nvidia-smi: the instances destroyed, the mode set, a reset if pending. */
    @Test
    void byHandTheInstancesGoAndAnAmpereIsResetSoTheModeIsCurrent() {
      SimulatedGpuBackend h100 = migEnabled("H100-80GB");
      h100.createGpuInstance(0, "3g.40gb");
      h100.setMigModeByHand(0, false);
      assertThat(gpu(h100, 0).instances()).isEmpty();
      assertThat(gpu(h100, 0).migMode()).isEqualTo(MigMode.DISABLED);

      SimulatedGpuBackend a100 = node("A100-40GB", 1, false);
      a100.setMigModeByHand(0, true);
      assertThat(gpu(a100, 0).migMode()).isEqualTo(MigMode.ENABLED);
      assertThat(gpu(a100, 0).migModePending()).isEqualTo(MigMode.ENABLED);
      assertThatThrownBy(() -> a100.setMigModeByHand(1, true)).hasMessage("no GPU 1 on this node");
    }
  }

  @Nested
  class Reset {
    @Test
    void resetIsRefusedWhileAComputeProcessRuns() {
      SimulatedGpuBackend a100 = node("A100-80GB", 1, false);
      long pid = a100.startProcess(0, "train.py");
      assertThatThrownBy(() -> a100.resetGpu(0))
          .isInstanceOfSatisfying(
              GpuOperationException.class,
              e -> assertThat(e.holder()).isEqualTo("process train.py (pid " + pid + ")"))
          .hasMessage(
              "GPU 0: reset failed: compute process running: process train.py (pid " + pid + ")");
      a100.stopProcess(0, pid);
      a100.resetGpu(0);
    }

    @Test
    void resetIsRefusedWhilePersistencedHoldsTheGpu() {
      SimulatedGpuBackend a100 = node("A100-80GB", 1, false);
      a100.holdHandle(0, "nvidia-persistenced");
      assertThatThrownBy(() -> a100.resetGpu(0))
          .isInstanceOfSatisfying(
              GpuOperationException.class,
              e -> assertThat(e.holder()).isEqualTo("nvidia-persistenced"))
          .hasMessage("GPU 0: reset failed: GPU is held open by nvidia-persistenced");
      a100.releaseHandle(0, "nvidia-persistenced");
      a100.resetGpu(0);
    }

    @Test
    void resetIsRefusedWhileVfsAreEnabled() {
      SimulatedGpuBackend h200 = node("H200", 1, true);
      h200.setVfsEnabled(0, 4);
      assertThatThrownBy(() -> h200.resetGpu(0))
          .isInstanceOfSatisfying(
              GpuOperationException.class,
              e -> assertThat(e.holder()).isEqualTo("4 SR-IOV VFs enabled"))
          .hasMessage("GPU 0: reset failed: 4 SR-IOV VFs enabled; disable them first");
    }

    @Test
    void resetTouchesOnlyThatGpu() {
      SimulatedGpuBackend a100 = node("A100-80GB", 3, false);
      a100.setMigMode(1, true);
      a100.resetGpu(1);
      a100.createGpuInstance(1, "3g.40gb", 4);
      a100.setMigMode(0, true);
      a100.setMigMode(2, true);

      a100.resetGpu(0);

      assertThat(gpu(a100, 0).migMode()).isEqualTo(MigMode.ENABLED);
      assertThat(gpu(a100, 1).instances()).containsExactly(new GpuInstance("3g.40gb", 4, 4));
      assertThat(gpu(a100, 2).migMode()).isEqualTo(MigMode.DISABLED);
      assertThat(gpu(a100, 2).migModePending()).isEqualTo(MigMode.ENABLED);
    }
  }

  @Nested
  class GpuInstances {
    /**
     * One more instance asked of a MIG-enabled GPU of {@code model} that holds {@code existing}.
     * Instances are written as the backend names them: {@code profile@start}, or the bare profile
     * for the first free placement.
     */
    record RefusedCreate(
        String rule, String model, List<String> existing, String asked, String message) {
      @Override
      public String toString() {
        return rule;
      }
    }

    static Stream<RefusedCreate> refusedCreates() {
      return Stream.of(
          new RefusedCreate(
              "only the profile's placements",
              "H100-80GB",
              List.of(),
              "3g.40gb@2",
              "GPU 0: create GPU instance 3g.40gb at 2 failed: placement 2 is not valid for"
                  + " 3g.40gb (valid starts: [0, 4])"),
          new RefusedCreate(
              "no overlapping memory slices",
              "H100-80GB",
              List.of("4g.40gb@0"),
              "2g.20gb@2",
              "GPU 0: create GPU instance 2g.20gb at 2 failed: memory slices 2..3 overlap"
                  + " 4g.40gb at 0"),
          new RefusedCreate(
              "no more than the profile's maximum",
              "A100-40GB",
              List.of("3g.20gb", "3g.20gb"),
              "3g.20gb",
              "GPU 0: create GPU instance 3g.20gb failed: at most 2 instances of 3g.20gb fit on"
                  + " one GPU"),
          new RefusedCreate(
              "at most one media-extension instance a GPU",
              "RTX-PRO-6000",
              List.of("1g.24gb+me.all@0"),
              "2g.48gb+me.all@2",
              "GPU 0: create GPU instance 2g.48gb+me.all at 2 failed: a GPU holds at most one"
                  + " media-extension (+me) instance"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedCreates")
    void instancesAreRefusedWithTheRuleTheyBreak(RefusedCreate refused) {
      SimulatedGpuBackend backend = migEnabled(refused.model());
      refused.existing().forEach(instance -> create(backend, instance));
      assertThatThrownBy(() -> create(backend, refused.asked())).hasMessage(refused.message());
    }

    private static void create(SimulatedGpuBackend backend, String instance) {
      int at = instance.indexOf('@');
      if (at < 0) {
        backend.createGpuInstance(0, instance);
      } else {
        backend.createGpuInstance(
            0, instance.substring(0, at), Integer.parseInt(instance.substring(at + 1)));
      }
    }

    @Test
    void firstFreePlacementIsChosenAndAFullGpuRefusesMore() {
      SimulatedGpuBackend h100 = migEnabled("H100-80GB");
      assertThat(h100.createGpuInstance(0, "2g.20gb")).isEqualTo(new GpuInstance("2g.20gb", 0, 2));
      assertThat(h100.createGpuInstance(0, "3g.40gb")).isEqualTo(new GpuInstance("3g.40gb", 4, 4));
      assertThatThrownBy(() -> h100.createGpuInstance(0, "3g.40gb"))
          .hasMessageStartingWith(
              "GPU 0: create GPU instance 3g.40gb failed: no free placement: valid starts [0, 4]");
      assertThat(h100.createGpuInstance(0, "1g.20gb")).isEqualTo(new GpuInstance("1g.20gb", 2, 2));
    }

    @Test
    void unknownProfilesAreRefusedWithTheValidOnes() {
      SimulatedGpuBackend h200 = migEnabled("H200");
      assertThatThrownBy(() -> h200.createGpuInstance(0, "1g.10gb"))
          .hasMessageStartingWith(
              "GPU 0: create GPU instance 1g.10gb failed: unknown profile for NVIDIA H200 (valid:"
                  + " 1g.18gb, 1g.18gb+me,");
    }

    @Test
    void destroyingAMissingInstanceIsRefused() {
      SimulatedGpuBackend h100 = migEnabled("H100-80GB");
      h100.createGpuInstance(0, "3g.40gb", 0);
      assertThatThrownBy(() -> h100.destroyGpuInstance(0, 4))
          .hasMessage(
              "GPU 0: destroy GPU instance at 4 failed: no GPU instance starts at memory slice 4"
                  + " (instances: [3g.40gb@0])");
      h100.destroyGpuInstance(0, 0);
      assertThat(gpu(h100, 0).instances()).isEmpty();
    }
  }

  @Nested
  class SriovAndVgpu {
    @Test
    void togglingSriovDestroysTheGpusInstances() {
      SimulatedGpuBackend h100 = node("H100-80GB", 2, true);
      h100.setMigMode(0, true);
      h100.setMigMode(1, true);
      h100.createGpuInstance(0, "3g.40gb");
      h100.createGpuInstance(1, "3g.40gb");

      h100.setVfsEnabled(0, 8);

      assertThat(gpu(h100, 0).instances()).isEmpty();
      assertThat(gpu(h100, 0).vfsEnabled()).isEqualTo(8);
      assertThat(gpu(h100, 1).instances()).hasSize(1);
    }

    @Test
    void gpusWithoutSriovRefuseVfs() {
      assertThatThrownBy(() -> node("A100-80GB", 1, true).setVfsEnabled(0, 1))
          .hasMessage(
              "GPU 0: enable 1 SR-IOV VFs failed: NVIDIA A100-SXM4-80GB is not SR-IOV capable");
      assertThatThrownBy(() -> node("H100-80GB", 1, false).setVfsEnabled(0, 1))
          .hasMessage(
              "GPU 0: enable 1 SR-IOV VFs failed: NVIDIA H100 80GB HBM3 exposes no VFs without"
                  + " the vGPU (vgpu-kvm) driver");
    }

    @Test
    void vfCountChangesGoThroughZero() {
      SimulatedGpuBackend l4 = node("L4", 1, true);
      l4.setVfsEnabled(0, 4);
      assertThatThrownBy(() -> l4.setVfsEnabled(0, 8))
          .hasMessage(
              "GPU 0: enable 8 SR-IOV VFs failed: 4 VFs already enabled; disable them (0) first");
      assertThatThrownBy(() -> l4.setVfsEnabled(0, 33))
          .hasMessage("GPU 0: enable 33 SR-IOV VFs failed: count must be between 0 and 32");
    }

    @Test
    void migBackedVgpuTypesNeedAFreeGpuInstanceOfTheirProfile() {
      SimulatedGpuBackend h100 = node("H100-80GB", 1, true);
      h100.setVfsEnabled(0, 4);
      h100.setMigMode(0, true);
      assertThat(h100.virtualFunctions(0).getFirst().creatableVgpuTypeIds()).doesNotContain(1001);
      assertThatThrownBy(() -> h100.setVgpuType(0, 0, 1001))
          .hasMessage(
              "GPU 0: write vGPU type 1001 to VF 0 failed: H100-1-10C is not in the VF's"
                  + " creatable types []: needs a free GPU instance of profile 1g.10gb");

      h100.createGpuInstance(0, "1g.10gb", 0);
      assertThat(h100.virtualFunctions(0).getFirst().creatableVgpuTypeIds()).containsExactly(1001);
      h100.setVgpuType(0, 0, 1001);

      assertThat(h100.virtualFunctions(0).get(0).currentVgpuTypeId()).isEqualTo(1001);
      assertThat(h100.virtualFunctions(0).get(0).creatableVgpuTypeIds()).isEmpty();
      assertThat(h100.virtualFunctions(0).get(1).creatableVgpuTypeIds()).isEmpty();
      assertThatThrownBy(() -> h100.destroyGpuInstance(0, 0))
          .isInstanceOfSatisfying(
              GpuOperationException.class, e -> assertThat(e.holder()).isEqualTo("vGPU on VF 0"));
      assertThatThrownBy(() -> h100.setVfsEnabled(0, 0))
          .hasMessage(
              "GPU 0: enable 0 SR-IOV VFs failed: vGPU type 1001 on VF 0 exists; remove it first");

      h100.setVgpuType(0, 0, 0);
      h100.destroyGpuInstance(0, 0);
    }

    @Test
    void migModeCannotBeEnabledUnderATimeSlicedVgpu() {
      SimulatedGpuBackend h100 = node("H100-80GB", 1, true);
      h100.setVfsEnabled(0, 1);
      h100.setVgpuType(0, 0, 1010);

      assertThatThrownBy(() -> h100.setMigMode(0, true))
          .hasMessage(
              "GPU 0: set MIG mode enabled failed: time-sliced vGPU type H100-10C is assigned to a"
                  + " VF; clear it first");
      assertThat(gpu(h100, 0).migMode()).isEqualTo(MigMode.DISABLED);

      h100.setVgpuType(0, 0, 0);
      h100.setMigMode(0, true);
      assertThat(gpu(h100, 0).migMode()).isEqualTo(MigMode.ENABLED);
    }

    @Test
    void timeSlicedCreatableListShrinksAsTypesArePlaced() {
      SimulatedGpuBackend l4 = node("L4", 1, true);
      l4.setVfsEnabled(0, 4);
      assertThat(l4.virtualFunctions(0).getFirst().creatableVgpuTypeIds())
          .containsExactly(1201, 1202, 1203, 1204);

      l4.setVgpuType(0, 0, 1203); // L4-12Q, two per GPU
      assertThat(l4.virtualFunctions(0).get(1).creatableVgpuTypeIds()).containsExactly(1203);
      l4.setVgpuType(0, 1, 1203);
      assertThat(l4.virtualFunctions(0).get(2).creatableVgpuTypeIds()).isEmpty();
      assertThatThrownBy(() -> l4.setVgpuType(0, 2, 1203))
          .hasMessage(
              "GPU 0: write vGPU type 1203 to VF 2 failed: L4-12Q is not in the VF's creatable"
                  + " types []: at most 2 of L4-12Q fit on one GPU");
      assertThatThrownBy(() -> l4.setVgpuType(0, 2, 1201))
          .hasMessageEndingWith("the GPU already holds time-sliced type L4-12Q");
      assertThatThrownBy(() -> l4.setVgpuType(0, 0, 1203))
          .hasMessage(
              "GPU 0: write vGPU type 1203 to VF 0 failed: VF already has vGPU type 1203; write 0"
                  + " first");
      assertThatThrownBy(() -> l4.setVgpuType(0, 9, 1203))
          .hasMessage(
              "GPU 0: write vGPU type 1203 to VF 9 failed: VF 9 does not exist (4 enabled)");
    }

    @Test
    void vfsHaveTheirOwnPciAddresses() {
      SimulatedGpuBackend l4 = node("L4", 1, true);
      l4.setVfsEnabled(0, 9);
      assertThat(l4.virtualFunctions(0).get(0).pciBusId()).isEqualTo("00000000:19:00.0");
      assertThat(l4.virtualFunctions(0).get(8).pciBusId()).isEqualTo("00000000:19:01.0");
    }
  }

  @Nested
  class KernelModules {
    @Test
    void unloadingNvidiaFailsWhileDependentsAndHoldersRemain() {
      SimulatedGpuBackend node = node("H100-80GB", 2, false);
      long pid = node.startProcess(1, "python");
      node.holdHandle(0, "nvidia-persistenced");

      assertThatThrownBy(() -> node.unloadModule("nvidia"))
          .isInstanceOfSatisfying(
              ModuleBusyException.class,
              e ->
                  assertThat(e.holders())
                      .containsExactly(
                          "module nvidia_uvm",
                          "module nvidia_modeset",
                          "module nvidia_peermem",
                          "nvidia-persistenced on GPU 0",
                          "process python (pid " + pid + ") on GPU 1"))
          .hasMessageStartingWith("module nvidia: EBUSY: module is in use by module nvidia_uvm");
      assertThat(node.moduleRefcount("nvidia")).isEqualTo(5);
    }

    @Test
    void unloadingUvmFailsWhileACudaProcessRuns() {
      SimulatedGpuBackend node = node("L40S", 1, false);
      long pid = node.startProcess(0, "inference");
      assertThatThrownBy(() -> node.unloadModule("nvidia_uvm"))
          .hasMessage(
              "module nvidia_uvm: EBUSY: module is in use by process inference (pid "
                  + pid
                  + ") on GPU 0");
      node.stopProcess(0, pid);
      node.unloadModule("nvidia_uvm");
      assertThat(node.loadedModules()).doesNotContain("nvidia_uvm");
    }

    @Test
    void modulesUnloadInReverseDependencyOrderAndLoadWithTheirDependencies() {
      SimulatedGpuBackend node = node("T4", 1, false);
      assertThatThrownBy(() -> node.unloadModule("nvidia_modeset"))
          .hasMessage("module nvidia_modeset: EBUSY: module is in use by module nvidia_drm");
      for (String module :
          List.of("nvidia_drm", "nvidia_modeset", "nvidia_uvm", "nvidia_peermem", "nvidia")) {
        node.unloadModule(module);
      }
      assertThat(node.loadedModules()).isEmpty();
      assertThatThrownBy(() -> node.startProcess(0, "python"))
          .hasMessage("GPU 0: start process python failed: the nvidia kernel module is not loaded");

      node.loadModule("nvidia_drm");
      assertThat(node.loadedModules()).containsExactly("nvidia", "nvidia_modeset", "nvidia_drm");
    }
  }

  @Nested
  class Reboot {
    @Test
    void rebootLosesVfsVgpuTypesInstancesProcessesAndHopperMigMode() {
      SimulatedGpuBackend h100 = node("H100-80GB", 1, true);
      h100.setVfsEnabled(0, 4);
      h100.setMigMode(0, true);
      h100.createGpuInstance(0, "1g.10gb");
      h100.setVgpuType(0, 0, 1001);
      h100.startProcess(0, "vm");
      h100.holdHandle(0, "nvidia-persistenced");
      String bootBefore = h100.bootId();

      h100.reboot();

      Gpu after = gpu(h100, 0);
      assertThat(after.vfsEnabled()).isZero();
      assertThat(after.instances()).isEmpty();
      assertThat(after.migMode()).isEqualTo(MigMode.DISABLED);
      assertThat(after.migModePending()).isEqualTo(MigMode.DISABLED);
      assertThat(h100.virtualFunctions(0)).isEmpty();
      assertThat(h100.computeProcesses(0)).isEmpty();
      assertThat(h100.handleHolders(0)).isEmpty();
      assertThat(h100.bootId()).isNotEqualTo(bootBefore);
    }

    @Test
    void ampereKeepsMigModeAcrossRebootAndCommitsAPendingOne() {
      SimulatedGpuBackend a100 = node("A100-80GB", 2, false);
      a100.setMigMode(0, true);
      a100.resetGpu(0);
      a100.createGpuInstance(0, "7g.80gb");
      a100.setMigMode(1, true); // pending

      a100.reboot();

      assertThat(gpu(a100, 0).migMode()).isEqualTo(MigMode.ENABLED);
      assertThat(gpu(a100, 0).instances()).isEmpty();
      assertThat(gpu(a100, 1).migMode()).isEqualTo(MigMode.ENABLED);
    }

    @Test
    void rebootReloadsModules() {
      SimulatedGpuBackend node = node("L4", 1, false);
      node.unloadModule("nvidia_drm");
      node.reboot();
      assertThat(node.loadedModules())
          .containsExactly(
              "nvidia", "nvidia_uvm", "nvidia_modeset", "nvidia_drm", "nvidia_peermem");
    }
  }

  @Test
  void inventoryIsDeterministicPerNodeAndIndex() {
    List<Gpu> first = node("H200", 8, false).inventory();
    List<Gpu> second = node("H200", 8, false).inventory();
    assertThat(first).isEqualTo(second);
    assertThat(first.stream().map(Gpu::uuid).distinct()).hasSize(8);
    assertThat(first.getFirst().pciBusId()).isEqualTo("00000000:18:00.0");
    assertThat(
            new SimulatedGpuBackend("node-2", "580.95.05", List.of(model("H200")), false)
                .inventory()
                .getFirst()
                .uuid())
        .isNotEqualTo(first.getFirst().uuid());
  }

  @Test
  void listenersHearOfEveryChangeButNotOfRefusals() throws Exception {
    SimulatedGpuBackend node = node("L4", 1, false);
    AtomicInteger changes = new AtomicInteger();
    AutoCloseable subscription = node.onChange(changes::incrementAndGet);
    node.setHealth(0, GpuHealth.DEGRADED);
    assertThatThrownBy(() -> node.setMigMode(0, true)).isInstanceOf(GpuOperationException.class);
    assertThat(changes).hasValue(1);
    assertThat(gpu(node, 0).health()).isEqualTo(GpuHealth.DEGRADED);
    subscription.close();
    node.setHealth(0, GpuHealth.HEALTHY);
    assertThat(changes).hasValue(1);
  }

  static SimulatedGpuBackend migEnabled(String model) {
    SimulatedGpuBackend backend = node(model, 1, false);
    backend.setMigMode(0, true);
    backend.resetGpu(0);
    return backend;
  }
}
