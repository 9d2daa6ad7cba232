package io.fleetwave.agent.modules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.host.RecordingRunner;
import io.fleetwave.agent.probe.HostProbe;
import io.fleetwave.agent.probe.HostProbeSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelModulesTest {
  @TempDir Path dir;

  private static final String ALL_LOADED =
      "nvidia_drm 122880 0 - Live 0x0000000000000000\n"
          + "nvidia_modeset 1556480 1 nvidia_drm, Live 0x0000000000000000\n"
          + "nvidia_uvm 4956160 0 - Live 0x0000000000000000\n"
          + "nvidia 89628672 2 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000\n"
          + "ext4 1003520 2 - Live 0x0000000000000000\n";

  private HostFacts driverContainerHost(String procModules) {
    new HostTree(dir)
        .osRelease("ubuntu", "22.04")
        .kernel("5.15.0-1042-nvidia")
        .mountinfo(HostTree.RW_ROOT_MOUNTINFO)
        .driver("/run/nvidia/driver", "lib64")
        .devices("/", 1)
        .file("proc/modules", procModules);
    return new HostProbe(HostProbeSettings.detectAll(dir)).probe();
  }

  @Test
  void unloadGoesInReverseDependencyOrderAndSkipsWhatIsNotLoaded() {
    RecordingRunner runner = RecordingRunner.succeeding();
    ModuleChange change =
        new KernelModules(driverContainerHost(ALL_LOADED), runner, Duration.ofSeconds(5))
            .unload("580.95.05");

    assertThat(runner.commands())
        .containsExactly(
            List.of("rmmod", "nvidia_drm"),
            List.of("rmmod", "nvidia_modeset"),
            List.of("rmmod", "nvidia_uvm"),
            List.of("rmmod", "nvidia"));
    assertThat(change.done())
        .containsExactly("nvidia_drm", "nvidia_modeset", "nvidia_uvm", "nvidia");
    assertThat(change.skipped()).containsExactly("nvidia_peermem: not loaded");
  }

  @Test
  void loadGoesInDependencyOrderAndToleratesAMissingPeermem() {
    RecordingRunner runner =
        RecordingRunner.failingOn(
            "nvidia_peermem", "modprobe: FATAL: Module nvidia_peermem not found");
    ModuleChange change =
        new KernelModules(driverContainerHost(""), runner, Duration.ofSeconds(5)).load("580.95.05");

    assertThat(runner.commands().stream().map(List::getLast))
        .containsExactly("nvidia", "nvidia_uvm", "nvidia_modeset", "nvidia_drm", "nvidia_peermem");
    assertThat(change.done())
        .containsExactly("nvidia", "nvidia_uvm", "nvidia_modeset", "nvidia_drm");
    assertThat(change.skipped())
        .containsExactly(
            "nvidia_peermem: modprobe nvidia_peermem exited 1: modprobe: FATAL: Module nvidia_peermem not found");
  }

  @Test
  void ebusyIsReportedWithTheHoldersFound() {
    HostFacts facts = driverContainerHost(ALL_LOADED);
    new HostTree(dir)
        .dir("sys/module/nvidia/holders/nvidia_uvm")
        .file("proc/812/comm", "nvidia-persistenced\n")
        .symlink("proc/812/fd/3", "/dev/nvidia0")
        .file("proc/900/comm", "bash\n")
        .symlink("proc/900/fd/1", "/dev/pts/0");
    RecordingRunner runner =
        RecordingRunner.failingOn("nvidia", "rmmod: ERROR: Module nvidia is in use by: nvidia_uvm");

    assertThatThrownBy(
            () -> new KernelModules(facts, runner, Duration.ofSeconds(5)).unload("580.95.05"))
        .isInstanceOfSatisfying(
            ModuleBusyException.class,
            e -> {
              assertThat(e.module()).isEqualTo("nvidia");
              assertThat(e.holders())
                  .containsExactly(
                      "module nvidia_modeset",
                      "module nvidia_uvm",
                      "nvidia-persistenced (pid 812)");
            })
        .hasMessage(
            "unloading nvidia failed: EBUSY (refcount 2); held by module nvidia_modeset, module nvidia_uvm,"
                + " nvidia-persistenced (pid 812) (unloaded before the failure: nvidia_drm, nvidia_modeset, nvidia_uvm)");
  }

  @Test
  void talosRefusesBecauseTheDriverComesWithTheOsImage() {
    HostTree.talos(dir).driver("/usr/local", "lib64").file("proc/modules", ALL_LOADED);
    HostFacts facts = new HostProbe(HostProbeSettings.detectAll(dir)).probe();
    RecordingRunner runner = RecordingRunner.succeeding();
    KernelModules modules = new KernelModules(facts, runner, Duration.ofSeconds(5));

    assertThatThrownBy(() -> modules.unload("595.45.04"))
        .hasMessage(
            "the driver comes with the OS image: a driver change needs an OS image with driver 595.45.04"
                + " (talos v1.13.0 does not let workloads load kernel modules)");
    assertThatThrownBy(() -> modules.load("595.45.04"))
        .hasMessageStartingWith("the driver comes with the OS image");
    assertThat(runner.commands()).isEmpty();
  }

  @Test
  void cosRefusesToo() {
    new HostTree(dir)
        .osRelease("cos", "121")
        .kernel("6.6.72+")
        .mountinfo(HostTree.RO_ROOT_MOUNTINFO)
        .driver("/home/kubernetes/bin/nvidia", "lib64");
    HostFacts facts = new HostProbe(HostProbeSettings.detectAll(dir)).probe();
    assertThatThrownBy(
            () ->
                new KernelModules(facts, RecordingRunner.succeeding(), Duration.ofSeconds(5))
                    .unload("580.95.05"))
        .hasMessageStartingWith(
            "the driver comes with the OS image: a driver change needs an OS image with driver 580.95.05 (cos 121");
  }
}
