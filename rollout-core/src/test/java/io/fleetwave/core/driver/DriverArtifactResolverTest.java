package io.fleetwave.core.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.HostKind;
import java.util.List;
import org.junit.jupiter.api.Test;

class DriverArtifactResolverTest {
  private static final GpuModel H100 = GpuCatalog.bundled().find("H100-80GB").orElseThrow();
  private static final GpuModel B200 = GpuCatalog.bundled().find("B200").orElseThrow();
  private static final GpuModel RTX = GpuCatalog.bundled().find("RTX-PRO-6000").orElseThrow();
  private static final DriverVersion V580 = DriverVersion.parse("580.95.05");
  private final DriverArtifactResolver containers =
      new DriverArtifactResolver(DriverArtifactPolicy.nvidiaDefaults());
  private final DriverArtifactResolver precompiled =
      new DriverArtifactResolver(DriverArtifactPolicy.nvidiaDefaults().withPrecompiled(true));

  @Test
  void ubuntuDriverContainerTagKeepsTheFullOsVersion() {
    assertThat(image(containers, node("ubuntu", "22.04", "5.15.0-1048-nvidia")))
        .isEqualTo("nvcr.io/nvidia/driver:580.95.05-ubuntu22.04");
  }

  @Test
  void rhelRockyAndOracleTagsUseTheMajorVersionOnly() {
    assertThat(image(containers, node("rhel", "9.4", "5.14.0-427.13.1.el9_4.x86_64")))
        .endsWith(":580.95.05-rhel9");
    assertThat(image(containers, node("rocky", "8.10", "4.18.0-553.el8_10.x86_64")))
        .endsWith(":580.95.05-rocky8");
    assertThat(DriverImageTags.osTag("ol", "9.3")).isEqualTo("ol9");
  }

  @Test
  void precompiledTagCarriesTheBranchAndTheSanitizedKernel() {
    assertThat(image(precompiled, node("ubuntu", "22.04", "5.15.0-1048-nvidia_x86_64")))
        .isEqualTo("nvcr.io/nvidia/driver:580-5.15.0-1048-nvidia-ubuntu22.04");
    assertThat(DriverImageTags.sanitizedKernel("5.14.0-427.13.1.el9_4.x86_64"))
        .isEqualTo("5.14.0-427.13.1.el9.4");
    assertThat(DriverImageTags.sanitizedKernel("6.8.0-1015-AWS_aarch64_64k"))
        .isEqualTo("6.8.0-1015-aws");
  }

  @Test
  void unsupportedOsHasNoImage() {
    DriverResolution resolution =
        containers.resolve(node("sles", "15.6", "6.4.0-150600"), List.of(H100), V580);
    assertThat(resolution)
        .isInstanceOfSatisfying(
            DriverResolution.Unservable.class,
            u -> assertThat(u.reason()).contains("no driver container image for sles15.6"));
    assertThat(precompiled.resolve(node("rhel", "9.4", "5.14.0"), List.of(H100), V580))
        .isInstanceOfSatisfying(
            DriverResolution.Unservable.class,
            u -> assertThat(u.reason()).contains("no precompiled driver image for rhel9"));
  }

  @Test
  void talosAndCosNeedAnOsImageWithTheDriver() {
    NodeDriverFacts talos =
        new NodeDriverFacts(
            HostKind.TALOS,
            "talos",
            "1.11.2",
            "6.12.48-talos",
            DriverProvider.OS_IMAGE,
            "570.172.08");
    NodeDriverFacts cos =
        new NodeDriverFacts(
            HostKind.COS, "cos", "121", "6.6.93+", DriverProvider.OS_IMAGE, "570.172.08");

    for (NodeDriverFacts node : List.of(talos, cos)) {
      DriverResolution resolution = containers.resolve(node, List.of(H100), V580);
      assertThat(resolution)
          .isEqualTo(
              new DriverResolution.Resolved(
                  new DriverArtifact.OsImage("580.95.05", node.osId(), node.osVersion())));
      assertThat(((DriverResolution.Resolved) resolution).artifact().describe())
          .startsWith("needs OS image with driver 580.95.05");
    }
  }

  @Test
  void hostPackageNamesTheBranchPackageOnUbuntu() {
    NodeDriverFacts host =
        new NodeDriverFacts(
            HostKind.UBUNTU,
            "ubuntu",
            "24.04",
            "6.8.0-45-generic",
            DriverProvider.HOST_PACKAGE,
            "570.86.15");
    assertThat(containers.resolve(host, List.of(H100), V580))
        .isEqualTo(
            new DriverResolution.Resolved(
                new DriverArtifact.HostPackage(
                    "580.95.05", "nvidia-driver-580-server", "580.95.05")));
  }

  @Test
  void versionsTooOldForAGpuAreExcludedWithTheReason() {
    DriverResolution b200 =
        containers.resolve(
            node("ubuntu", "22.04", "5.15.0"),
            List.of(H100, B200),
            DriverVersion.parse("560.35.03"));
    assertThat(b200)
        .isInstanceOfSatisfying(
            DriverResolution.Unservable.class,
            u ->
                assertThat(u.reason())
                    .contains("560.35.03", "B200 needs >= 570.00")
                    .doesNotContain("H100"));
    assertThat(
            containers.resolve(
                node("ubuntu", "22.04", "5.15.0"), List.of(RTX), DriverVersion.parse("575.51.02")))
        .isInstanceOf(DriverResolution.Unservable.class);
    assertThat(
            containers.resolve(
                node("ubuntu", "22.04", "5.15.0"), List.of(RTX), DriverVersion.parse("575.51.03")))
        .isInstanceOf(DriverResolution.Resolved.class);
  }

  @Test
  void driverVersionsCompareNumericallyPartByPart() {
    assertThat(DriverVersion.parse("575.51.03")).isLessThan(DriverVersion.parse("575.64"));
    assertThat(DriverVersion.parse("575.64")).isLessThan(DriverVersion.parse("580.9.1"));
    assertThat(DriverVersion.parse("580.9")).isLessThan(DriverVersion.parse("580.10"));
    assertThat(DriverVersion.parse("570.00")).isEqualTo(DriverVersion.parse("570"));
    assertThat(DriverVersion.parse("570.00").hashCode())
        .isEqualTo(DriverVersion.parse("570").hashCode());
    assertThat(DriverVersion.parse("580.95.05")).hasToString("580.95.05");
    assertThatThrownBy(() -> DriverVersion.parse("580.x")).hasMessageContaining("580.x");
  }

  private static NodeDriverFacts node(String os, String version, String kernel) {
    return new NodeDriverFacts(
        HostKind.UBUNTU_DRIVER_CONTAINER,
        os,
        version,
        kernel,
        DriverProvider.DRIVER_CONTAINER,
        "570.86.15");
  }

  private static String image(DriverArtifactResolver resolver, NodeDriverFacts node) {
    DriverResolution resolution = resolver.resolve(node, List.of(H100), V580);
    return ((DriverArtifact.ContainerImage) ((DriverResolution.Resolved) resolution).artifact())
        .image();
  }
}
