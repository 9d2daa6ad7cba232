package io.fleetwave.agent.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.agent.gpu.GpuOperationException;
import io.fleetwave.agent.gpu.GpuProcess;
import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.probe.HostProbe;
import io.fleetwave.agent.probe.HostProbeSettings;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.MigMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The NVML path end to end: the host probe discovers a gcc-built stand-in libnvidia-ml.so.1 under a
 * Talos-like driver root (usr/local/lib64), and the backend drives it through the real
 * java.lang.foreign bindings: struct layouts, return codes, error messages.
 */
class NvmlGpuBackendIT {
  private static Path hostRoot;
  private static StubNvmlLibrary stub;

  private NvmlGpuBackend backend;

  @BeforeAll
  static void buildStub() throws Exception {
    hostRoot = Files.createTempDirectory(Path.of("target"), "nvml-host-").toAbsolutePath();
    stub = StubNvmlLibrary.build(hostRoot.resolve("usr/local/lib64"));
  }

  @BeforeEach
  void open() throws Throwable {
    stub.resetState();
    Path smiLog = hostRoot.resolve("nvidia-smi.log");
    Files.deleteIfExists(smiLog);
    HostTree.talos(hostRoot)
        .devices("/", 3)
        .executable("usr/local/bin/nvidia-smi", "#!/bin/sh\necho \"$@\" >> " + smiLog + "\n")
        .pf("0000:3b:00.0", 16, 0);
    HostFacts facts = new HostProbe(HostProbeSettings.detectAll(hostRoot)).probe();
    assertThat(facts.nvmlLibrary()).contains(hostRoot.resolve("usr/local/lib64/libnvidia-ml.so.1"));
    backend = StubNvmlLibrary.backend(facts);
  }

  @AfterEach
  void close() {
    backend.close();
  }

  @Test
  void inventoryComesThroughTheRealFfmBindings() {
    assertThat(backend.driverVersion()).isEqualTo("580.95.05");
    List<Gpu> gpus = backend.inventory();

    assertThat(gpus).hasSize(3);
    Gpu a100 = gpus.get(0);
    assertThat(a100.uuid()).isEqualTo("GPU-a100-0000");
    assertThat(a100.pciBusId()).isEqualTo("0000:07:00.0");
    assertThat(a100.pciDeviceId()).isEqualTo("0x20B010DE");
    assertThat(a100.product()).isEqualTo("NVIDIA A100-SXM4-40GB");
    assertThat(a100.memoryMiB()).isEqualTo(40960);
    assertThat(a100.migCapable()).isTrue();
    assertThat(a100.migMode()).isEqualTo(MigMode.DISABLED);
    assertThat(a100.vfsTotal()).isZero();

    Gpu h100 = gpus.get(1);
    assertThat(h100.pciBusId()).isEqualTo("0000:3b:00.0");
    assertThat(h100.pciDeviceId()).isEqualTo("0x233010DE");
    assertThat(h100.memoryMiB()).isEqualTo(81559);
    assertThat(h100.vfsTotal()).isEqualTo(16);

    Gpu l4 = gpus.get(2);
    assertThat(l4.product()).isEqualTo("NVIDIA L4");
    assertThat(l4.migCapable()).isFalse();
    assertThat(l4.migMode()).isEqualTo(MigMode.UNSUPPORTED);
    assertThat(l4.migModePending()).isEqualTo(MigMode.UNSUPPORTED);
  }

  @Test
  void migModeStaysPendingUntilTheTargetedResetOfThatGpuAlone() throws Throwable {
    backend.setMigMode(0, true);
    Gpu pending = backend.inventory().get(0);
    assertThat(pending.migMode()).isEqualTo(MigMode.DISABLED);
    assertThat(pending.migModePending()).isEqualTo(MigMode.ENABLED);

    backend.resetGpu(0);
    assertThat(Files.readAllLines(hostRoot.resolve("nvidia-smi.log")))
        .containsExactly("-r -i 0000:07:00.0");
    stub.commitReset(0);

    Gpu committed = backend.inventory().get(0);
    assertThat(committed.migMode()).isEqualTo(MigMode.ENABLED);
    assertThat(committed.migModePending()).isEqualTo(MigMode.ENABLED);
  }

  @Test
  void hopperCommitsMigModeWithoutReset() {
    backend.setMigMode(1, true);
    Gpu h100 = backend.inventory().get(1);
    assertThat(h100.migMode()).isEqualTo(MigMode.ENABLED);
    assertThat(h100.migModePending()).isEqualTo(MigMode.ENABLED);
  }

  @Test
  void instancesAreCreatedAndDestroyedAtPlacements() {
    backend.setMigMode(1, true);

    assertThat(backend.createGpuInstance(1, "3g.40gb", 4))
        .isEqualTo(new GpuInstance("3g.40gb", 4, 4));
    assertThat(backend.createGpuInstance(1, "3g.40gb")).isEqualTo(new GpuInstance("3g.40gb", 0, 4));
    assertThat(backend.inventory().get(1).instances())
        .containsExactly(new GpuInstance("3g.40gb", 0, 4), new GpuInstance("3g.40gb", 4, 4));

    assertThatThrownBy(() -> backend.createGpuInstance(1, "1g.10gb"))
        .isInstanceOf(GpuOperationException.class)
        .hasMessage(
            "GPU 1: createGpuInstance(1g.10gb) failed: NVML_ERROR_INSUFFICIENT_RESOURCES"
                + " (Ran out of critical resources, other than memory)");

    backend.destroyGpuInstance(1, 4);
    assertThat(backend.createGpuInstance(1, "2g.20gb", 4))
        .isEqualTo(new GpuInstance("2g.20gb", 4, 2));
    assertThat(backend.createGpuInstance(1, "1g.20gb", 6))
        .isEqualTo(new GpuInstance("1g.20gb", 6, 2));
    assertThat(backend.inventory().get(1).instances())
        .containsExactly(
            new GpuInstance("3g.40gb", 0, 4),
            new GpuInstance("2g.20gb", 4, 2),
            new GpuInstance("1g.20gb", 6, 2));
  }

  @Test
  void invalidPlacementsAndProfilesAreRefusedWithTheirReason() {
    backend.setMigMode(1, true);
    assertThatThrownBy(() -> backend.createGpuInstance(1, "3g.40gb", 2))
        .hasMessage(
            "GPU 1: createGpuInstance(3g.40gb@2) failed: memory slice 2 is not a valid placement; valid starts: 0, 4");
    assertThatThrownBy(() -> backend.createGpuInstance(1, "3g.20gb"))
        .hasMessageStartingWith(
            "GPU 1: createGpuInstance(3g.20gb) failed: no MIG profile 3g.20gb on H100-80GB; profiles: ");
    assertThatThrownBy(() -> backend.createGpuInstance(2, "1g.10gb"))
        .hasMessage("GPU 2: createGpuInstance(1g.10gb) failed: L4 is not MIG capable");
    assertThatThrownBy(() -> backend.destroyGpuInstance(1, 4))
        .hasMessage(
            "GPU 1: destroyGpuInstance(@4) failed: no GPU instance starts at memory slice 4");
    assertThatThrownBy(() -> backend.inventory().get(7))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> backend.setMigMode(7, true))
        .hasMessage("GPU 7: setMigMode(enabled) failed: no such GPU (this node has 3)");
  }

  @Test
  void nvmlReturnCodesBecomeMessagesNamingTheGpuAndOperation() {
    assertThatThrownBy(() -> backend.createGpuInstance(0, "1g.5gb"))
        .isInstanceOf(GpuOperationException.class)
        .hasMessage(
            "GPU 0: createGpuInstance(1g.5gb) failed: NVML_ERROR_INVALID_STATE (Invalid state)");
  }

  @Test
  void resetIsRefusedWhileAComputeProcessRunsAndNamesIt() throws Throwable {
    new HostTree(hostRoot).file("proc/4242/comm", "python3\n");
    stub.addProcess(1, 4242, 3L * 1024 * 1024 * 1024);

    assertThat(backend.computeProcesses(1)).containsExactly(new GpuProcess(4242, "python3", 3072));
    assertThatThrownBy(() -> backend.resetGpu(1))
        .isInstanceOfSatisfying(
            GpuOperationException.class,
            e -> assertThat(e.holder()).isEqualTo("python3 (pid 4242)"))
        .hasMessage("GPU 1: resetGpu failed: compute processes run on it: python3 (pid 4242)");
    assertThat(hostRoot.resolve("nvidia-smi.log")).doesNotExist();
  }

  @Test
  void resetIsRefusedWhileNvidiaPersistencedHoldsTheDevice() {
    new HostTree(hostRoot)
        .file("proc/812/comm", "nvidia-persistenced\n")
        .symlink("proc/812/fd/5", "/dev/nvidia0");
    try {
      assertThat(backend.handleHolders(0)).containsExactly("nvidia-persistenced (pid 812)");
      assertThat(backend.handleHolders(1)).isEmpty();
      assertThatThrownBy(() -> backend.resetGpu(0))
          .hasMessage("GPU 0: resetGpu failed: held by nvidia-persistenced (pid 812)");
      assertThat(hostRoot.resolve("nvidia-smi.log")).doesNotExist();
    } finally {
      deleteTree(hostRoot.resolve("proc/812"));
    }
  }

  @Test
  void vfsAreEnabledThroughSysfsAndThenBlockTheReset() throws Exception {
    backend.setVfsEnabled(1, 16);

    assertThat(Files.readString(hostRoot.resolve("sys/bus/pci/devices/0000:3b:00.0/sriov_numvfs")))
        .isEqualTo("16");
    assertThat(backend.inventory().get(1).vfsEnabled()).isEqualTo(16);
    assertThatThrownBy(() -> backend.resetGpu(1))
        .isInstanceOfSatisfying(
            GpuOperationException.class, e -> assertThat(e.holder()).isEqualTo("VFs enabled"))
        .hasMessage("GPU 1: resetGpu failed: SR-IOV VFs are enabled (16); disable them first");
    assertThatThrownBy(() -> backend.setVfsEnabled(0, 1))
        .hasMessage(
            "GPU 0: setVfsEnabled(1) failed: PF 0000:07:00.0: no such PCI function under sys/bus/pci/devices");
    assertThat(hostRoot.resolve("nvidia-smi.log")).doesNotExist();
  }

  private static void deleteTree(Path dir) {
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
