package io.fleetwave.testfixtures.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeRegistered;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class BuildersTest {
  private static final GpuModel H100 = GpuCatalog.bundled().find("0x233010DE").orElseThrow();

  @Test
  void fromCopiesEveryFieldOfNodeRegistered() {
    NodeRegistered facts = withKernel("k");

    assertThat(NodeRegisteredBuilder.from(facts).build()).isEqualTo(facts);
    assertThat(NodeRegisteredBuilder.from(facts).kernel("k2").build()).isEqualTo(withKernel("k2"));
  }

  /** A registration with a value in every field, different from the builder's defaults. */
  private static NodeRegistered withKernel(String kernel) {
    return new NodeRegistered(
        "h",
        HostKind.COS,
        "o",
        "v",
        kernel,
        true,
        false,
        "/d",
        "/dev-root",
        DriverProvider.DRIVER_CONTAINER,
        "1.2",
        "z",
        Map.of("a", "b"),
        Map.of("c", "d"));
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyHostKindHasTheFactsOfSuchAHost(HostKind kind) {
    NodeRegistered facts = NodeRegisteredBuilder.forHost("n", kind).build();

    assertThat(facts.hostKind()).isEqualTo(kind);
    assertThat(facts.readOnlyRoot()).isEqualTo(kind == HostKind.TALOS || kind == HostKind.COS);
    assertThat(facts.driverProvider())
        .isEqualTo(
            switch (kind) {
              case TALOS, COS -> DriverProvider.OS_IMAGE;
              case UBUNTU_DRIVER_CONTAINER -> DriverProvider.DRIVER_CONTAINER;
              case UBUNTU, VGPU_HOST -> DriverProvider.HOST_PACKAGE;
            });
  }

  @Test
  void fromCopiesEveryFieldOfGpu() {
    Gpu gpu =
        new Gpu(
            3,
            "GPU-x",
            "0000:01:00.0",
            "0x20B510DE",
            "P",
            10,
            true,
            MigMode.ENABLED,
            MigMode.DISABLED,
            List.of(new GpuInstance("1g.10gb", 0, 1)),
            4,
            2,
            GpuHealth.DEGRADED);

    assertThat(GpuBuilder.from(gpu).build()).isEqualTo(gpu);
  }

  @Test
  void aCatalogueGpuHasTheModelsFactsMigDisabledAndNoFunctionEnabled() {
    Gpu gpu = GpuBuilder.of(H100, 2).build();

    assertThat(gpu)
        .isEqualTo(
            new Gpu(
                2,
                "GPU-" + H100.shortName() + "-2",
                "00000000:1A:00.0",
                H100.pciDeviceId(),
                H100.product(),
                H100.memoryMiB(),
                true,
                MigMode.DISABLED,
                MigMode.DISABLED,
                List.of(),
                H100.sriovVfs(),
                0,
                GpuHealth.HEALTHY));
  }

  @Test
  void theRecordsOwnChecksStillApply() {
    assertThatThrownBy(() -> GpuBuilder.gpu(0).build()).hasMessageContaining("pciDeviceId");
    assertThatThrownBy(() -> GpuBuilder.of(H100, 0).vfsEnabled(H100.sriovVfs() + 1).build())
        .hasMessageContaining("vfsEnabled");
  }
}
