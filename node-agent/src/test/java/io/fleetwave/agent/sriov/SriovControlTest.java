package io.fleetwave.agent.sriov;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.host.RecordingRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SriovControlTest {
  @TempDir Path dir;

  private static final String PF = "0000:3b:00.0";

  @Test
  void sriovManageEnablesAndDisablesAllVfsWhereInstalled() {
    new HostTree(dir).pf(PF, 16, 0).executable("usr/lib/nvidia/sriov-manage", "#!/bin/sh\n");
    RecordingRunner runner = RecordingRunner.succeeding();
    SriovControl sriov = new SriovControl(dir, runner, Duration.ofSeconds(5));

    sriov.setVfs("00000000:3B:00.0", 16);
    new HostTree(dir).file("sys/bus/pci/devices/" + PF + "/sriov_numvfs", "16\n");
    sriov.setVfs(PF, 0);

    String manage = dir.resolve("usr/lib/nvidia/sriov-manage").toString();
    assertThat(runner.commands())
        .containsExactly(List.of(manage, "-e", PF), List.of(manage, "-d", PF));
  }

  @Test
  void withoutSriovManageSriovNumvfsIsWrittenThroughZero() throws Exception {
    new HostTree(dir).pf(PF, 16, 4);
    RecordingRunner runner = RecordingRunner.succeeding();
    SriovControl sriov = new SriovControl(dir, runner, Duration.ofSeconds(5));

    sriov.setVfs(PF, 8);

    assertThat(Files.readString(dir.resolve("sys/bus/pci/devices/" + PF + "/sriov_numvfs")))
        .isEqualTo("8");
    assertThat(runner.commands()).isEmpty();
  }

  @Test
  void tooManyVfsOrANonSriovFunctionAreRefused() {
    new HostTree(dir).pf(PF, 16, 0).file("sys/bus/pci/devices/0000:86:00.0/vendor", "0x10de\n");
    SriovControl sriov = new SriovControl(dir, RecordingRunner.succeeding(), Duration.ofSeconds(5));

    assertThatThrownBy(() -> sriov.setVfs(PF, 17))
        .hasMessage("PF 0000:3b:00.0: cannot enable 17 VFs: sriov_totalvfs is 16");
    assertThatThrownBy(() -> sriov.setVfs("0000:86:00.0", 1))
        .hasMessage("PF 0000:86:00.0: not SR-IOV capable (sriov_totalvfs is 0 or absent)");
    assertThatThrownBy(() -> sriov.setVfs("0000:99:00.0", 1))
        .hasMessage("PF 0000:99:00.0: no such PCI function under sys/bus/pci/devices");
  }

  @Test
  void aFailingSriovManageIsReportedWithItsOutput() {
    new HostTree(dir).pf(PF, 16, 0).executable("usr/lib/nvidia/sriov-manage", "#!/bin/sh\n");
    RecordingRunner runner =
        new RecordingRunner(
            argv -> RecordingRunner.failed(argv, 1, "Cannot enable VFs: GPU in use"));
    assertThatThrownBy(() -> new SriovControl(dir, runner, Duration.ofSeconds(5)).setVfs(PF, 16))
        .hasMessageEndingWith("-e 0000:3b:00.0 exited 1: Cannot enable VFs: GPU in use");
  }

  @Test
  void virtualFunctionsAreReadFromVirtfnLinksInOrder() {
    HostTree tree =
        new HostTree(dir)
            .pf(PF, 16, 2)
            .dir("sys/bus/pci/devices/0000:3b:00.4")
            .dir("sys/bus/pci/devices/0000:3b:00.5");
    tree.symlink("sys/bus/pci/devices/" + PF + "/virtfn1", "../0000:3b:00.5");
    tree.symlink("sys/bus/pci/devices/" + PF + "/virtfn0", "../0000:3b:00.4");

    assertThat(new PciSysfs(dir).virtualFunctions(PF))
        .containsExactly("0000:3b:00.4", "0000:3b:00.5");
  }
}
