package io.fleetwave.agent.sriov;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.sriov.VgpuSysfs.VgpuTypeEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VgpuSysfsTest {
  @TempDir Path dir;

  private static final String VF = "0000:3b:00.4";

  private VgpuSysfs vgpuWith(String creatable, String current) {
    new HostTree(dir)
        .file("sys/bus/pci/devices/" + VF + "/nvidia/creatable_vgpu_types", creatable)
        .file("sys/bus/pci/devices/" + VF + "/nvidia/current_vgpu_type", current);
    return new VgpuSysfs(dir);
  }

  @Test
  void creatableTypesAreParsedFromIdColonNameLines() {
    VgpuSysfs vgpu =
        vgpuWith(
            "ID    : vGPU Name\n1001  : NVIDIA H100-1-10C\n1002  : NVIDIA H100-2-20C\n\n", "0\n");

    assertThat(vgpu.creatableTypes(VF))
        .containsExactly(
            new VgpuTypeEntry(1001, "NVIDIA H100-1-10C"),
            new VgpuTypeEntry(1002, "NVIDIA H100-2-20C"));
    assertThat(vgpu.currentType(VF)).isZero();
  }

  @Test
  void aCreatableTypeIsWrittenToCurrentVgpuType() throws Exception {
    VgpuSysfs vgpu = vgpuWith("ID : vGPU Name\n1001 : NVIDIA H100-1-10C\n", "0\n");
    vgpu.setType(VF, 1001);
    assertThat(
            Files.readString(
                dir.resolve("sys/bus/pci/devices/" + VF + "/nvidia/current_vgpu_type")))
        .isEqualTo("1001");
    assertThat(vgpu.currentType(VF)).isEqualTo(1001);
  }

  @Test
  void aTypeNotInTheCreatableListIsRefusedAndNothingIsWritten() throws Exception {
    VgpuSysfs vgpu = vgpuWith("ID : vGPU Name\n1001 : NVIDIA H100-1-10C\n", "0\n");

    assertThatThrownBy(() -> vgpu.setType(VF, 1004))
        .isInstanceOf(SriovException.class)
        .hasMessage(
            "VF 0000:3b:00.4: vGPU type 1004 is not creatable here; creatable: 1001 (NVIDIA H100-1-10C)");
    assertThat(
            Files.readString(
                dir.resolve("sys/bus/pci/devices/" + VF + "/nvidia/current_vgpu_type")))
        .isEqualTo("0\n");
  }

  @Test
  void zeroRemovesTheVgpuEvenWhenNothingIsCreatable() throws Exception {
    VgpuSysfs vgpu = vgpuWith("ID : vGPU Name\n", "1001\n");
    vgpu.setType(VF, 0);
    assertThat(vgpu.currentType(VF)).isZero();
  }

  @Test
  void aVfWithoutTheNvidiaDirectoryIsNamed() {
    new HostTree(dir).dir("sys/bus/pci/devices/0000:3b:00.6");
    assertThatThrownBy(() -> new VgpuSysfs(dir).creatableTypes("0000:3b:00.6"))
        .hasMessageStartingWith("VF 0000:3b:00.6: no nvidia vGPU directory");
  }
}
