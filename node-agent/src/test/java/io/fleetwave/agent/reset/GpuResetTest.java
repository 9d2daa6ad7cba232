package io.fleetwave.agent.reset;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.agent.gpu.GpuProcess;
import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.host.RecordingRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GpuResetTest {
  @TempDir Path dir;

  private final ResetTarget gpu1 = new ResetTarget(1, "0000:3b:00.0", 1);
  private final List<String> reboots = new ArrayList<>();

  private GpuReset reset(RecordingRunner runner, boolean rebootAllowed, Optional<Path> smi) {
    return new GpuReset(
        dir, smi, runner, new ResetPolicy(rebootAllowed, Duration.ofSeconds(5)), reboots::add);
  }

  private Optional<Path> smi() {
    return Optional.of(dir.resolve("usr/bin/nvidia-smi"));
  }

  @Test
  void resetRunsNvidiaSmiForThatBusIdOnly() {
    RecordingRunner runner = RecordingRunner.succeeding();
    ResetOutcome outcome = reset(runner, false, smi()).reset(gpu1, List.of(), 0);

    assertThat(outcome).isEqualTo(new ResetOutcome.Reset("nvidia-smi -r -i 0000:3b:00.0"));
    assertThat(runner.commands())
        .containsExactly(
            List.of(dir.resolve("usr/bin/nvidia-smi").toString(), "-r", "-i", "0000:3b:00.0"));
  }

  @Test
  void resetIsRefusedWhileVfsAreEnabled() {
    RecordingRunner runner = RecordingRunner.succeeding();
    ResetOutcome outcome = reset(runner, true, smi()).reset(gpu1, List.of(), 4);

    assertThat(outcome)
        .isEqualTo(
            new ResetOutcome.Refused(
                "SR-IOV VFs are enabled (4); disable them first", "VFs enabled"));
    assertThat(runner.commands()).isEmpty();
    assertThat(reboots).isEmpty();
  }

  @Test
  void resetIsRefusedWhileComputeProcessesRunAndNamesThem() {
    ResetOutcome outcome =
        reset(RecordingRunner.succeeding(), true, smi())
            .reset(
                gpu1,
                List.of(new GpuProcess(4242, "python3", 1024), new GpuProcess(4300, "trainer", 10)),
                0);
    assertThat(outcome)
        .isEqualTo(
            new ResetOutcome.Refused(
                "compute processes run on it: python3 (pid 4242), trainer (pid 4300)",
                "python3 (pid 4242), trainer (pid 4300)"));
  }

  @Test
  void resetIsRefusedWhileDcgmHoldsThisGpuButNotForAnotherGpu() {
    new HostTree(dir)
        .file("proc/1500/comm", "nv-hostengine\n")
        .symlink("proc/1500/fd/7", "/dev/nvidia1")
        .symlink("proc/1500/fd/8", "/dev/nvidiactl");
    RecordingRunner runner = RecordingRunner.succeeding();

    assertThat(reset(runner, false, smi()).reset(gpu1, List.of(), 0))
        .isEqualTo(
            new ResetOutcome.Refused(
                "held by nv-hostengine (pid 1500)", "nv-hostengine (pid 1500)"));
    assertThat(
            reset(runner, false, smi()).reset(new ResetTarget(0, "0000:07:00.0", 0), List.of(), 0))
        .isEqualTo(new ResetOutcome.Reset("nvidia-smi -r -i 0000:07:00.0"));
    assertThat(runner.commands()).hasSize(1);
  }

  @Test
  void resetIsRefusedWhileNvidiaDrmIsInUse() {
    new HostTree(dir)
        .file(
            "proc/modules",
            "nvidia_drm 122880 2 - Live 0x0\nnvidia 89628672 5 nvidia_drm, Live 0x0\n");
    assertThat(reset(RecordingRunner.succeeding(), false, smi()).reset(gpu1, List.of(), 0))
        .isEqualTo(
            new ResetOutcome.Refused(
                "held by nvidia_drm (module refcount 2)", "nvidia_drm (module refcount 2)"));
  }

  @Test
  void withoutNvidiaSmiTheSysfsFunctionResetIsUsed() throws Exception {
    new HostTree(dir).file("sys/bus/pci/devices/0000:3b:00.0/reset", "");
    ResetOutcome outcome =
        reset(RecordingRunner.succeeding(), false, Optional.empty()).reset(gpu1, List.of(), 0);

    assertThat(outcome).isEqualTo(new ResetOutcome.Reset("sysfs PCI reset of 0000:3b:00.0"));
    assertThat(Files.readString(dir.resolve("sys/bus/pci/devices/0000:3b:00.0/reset")))
        .isEqualTo("1");
  }

  @Test
  void aFailedTargetedResetRebootsOnlyWherePolicyAllows() {
    RecordingRunner failing =
        new RecordingRunner(
            argv ->
                RecordingRunner.failed(
                    argv,
                    255,
                    "GPU Reset couldn't run because GPU 00000000:3B:00.0 is the primary GPU."));

    ResetOutcome refused = reset(failing, false, smi()).reset(gpu1, List.of(), 0);
    assertThat(refused).isInstanceOf(ResetOutcome.Refused.class);
    assertThat(((ResetOutcome.Refused) refused).reason())
        .startsWith("targeted reset failed (")
        .contains("exited 255: GPU Reset couldn't run")
        .endsWith("and the node's policy does not allow a reboot");
    assertThat(reboots).isEmpty();

    ResetOutcome rebooting = reset(failing, true, smi()).reset(gpu1, List.of(), 0);
    assertThat(rebooting).isInstanceOf(ResetOutcome.Rebooting.class);
    assertThat(((ResetOutcome.Rebooting) rebooting).reason())
        .endsWith("; node reboot allowed by policy");
    assertThat(reboots).hasSize(1);
  }
}
