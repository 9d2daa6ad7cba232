package io.fleetwave.core.mig;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** NVIDIA's published config-default.yaml: what real users bring. */
class NvidiaDefaultConfigTest {
  private static final GpuCatalog CATALOG = GpuCatalog.bundled();
  private final MigConfigFile file =
      new MigConfigImporter(CATALOG).importFile(MigTestFiles.read("nvidia-config-default.yaml"));

  @Test
  void everyConfigImports() {
    assertThat(file.configs()).hasSize(81);
    assertThat(file.configs().keySet()).contains("all-disabled", "all-enabled", "all-balanced");
  }

  @Test
  void everyConfigResolvesOnEveryCatalogueGpuAndAppliesToAtLeastOne() {
    List<NodeGpu> oneOfEach = oneGpuOfEveryModel();
    MigConfigResolver resolver = new MigConfigResolver(CATALOG);
    Set<String> noCatalogueGpuTakesIt = new java.util.TreeSet<>();
    for (MigConfig config : file.configs().values()) {
      MigResolution resolution = resolver.resolve(config, oneOfEach);
      assertThat(resolution.gpus()).as(config.name()).hasSize(oneOfEach.size());
      for (GpuResolution.Invalid invalid : resolution.invalid()) {
        assertThat(invalid.errors())
            .as(config.name())
            .allSatisfy(e -> assertThat(e).contains("config '" + config.name() + "'"));
      }
      if (resolution.configured().isEmpty()) {
        noCatalogueGpuTakesIt.add(config.name());
      }
    }
    // NVIDIA ships no config for a GPU it does not sell: each one must fit some catalogued model.
    assertThat(noCatalogueGpuTakesIt).as("configs no catalogued GPU can take").isEmpty();
  }

  @Test
  void everyDeviceFilterOfTheDefaultConfigNamesACatalogueModel() {
    assertThat(file.configs().values())
        .flatExtracting(MigConfig::entries)
        .flatExtracting(MigConfigEntry::deviceFilter)
        .allSatisfy(
            filter ->
                assertThat(CATALOG.find(filter.deviceId())).as(filter.deviceId()).isPresent());
  }

  @Test
  void allBalancedGivesEveryMigModelItsBalancedLayout() {
    MigResolution resolution =
        new MigConfigResolver(CATALOG)
            .resolve(file.config("all-balanced").orElseThrow(), oneGpuOfEveryModel());

    for (GpuResolution.Configured gpu : resolution.configured()) {
      int expected =
          switch (gpu.model().shortName()) {
            case "RTX-PRO-6000", "A30" -> 3;
            default -> 4;
          };
      assertThat(gpu.placements()).as(gpu.model().shortName()).hasSize(expected);
    }
    assertThat(resolution.configured())
        .extracting(c -> c.model().shortName())
        .containsExactlyInAnyOrder(
            "A100-40GB",
            "A100-80GB",
            "H100-80GB",
            "H100-NVL",
            "H200",
            "B200",
            "GB200",
            "RTX-PRO-6000",
            "A30",
            "H100-96GB",
            "GH200",
            "H20",
            "PG506-96GB",
            "GH200-144GB",
            "B300",
            "GB300");
    assertThat(resolution.unmatched())
        .extracting(GpuResolution::pciDeviceId)
        .containsExactlyInAnyOrder("0x27B810DE", "0x26B910DE", "0x1EB810DE");
  }

  @Test
  void firstMatchingEntryWinsAndDevicesLimitTheMatch() {
    MigConfig config =
        MigConfigParser.parse(
                """
                version: v1
                mig-configs:
                  split:
                    - device-filter: "0x233010DE"
                      devices: [1]
                      mig-enabled: true
                      mig-devices: {"7g.80gb": 1}
                    - device-filter: "0x233010DE"
                      devices: all
                      mig-enabled: true
                      mig-devices: {"1g.10gb": 7}
                """)
            .config("split")
            .orElseThrow();
    List<NodeGpu> gpus =
        List.of(
            new NodeGpu(0, "0x233010DE", null),
            new NodeGpu(1, "0x233010de", null),
            new NodeGpu(2, "0x26B910DE", null));

    MigResolution resolution = new MigConfigResolver(CATALOG).resolve(config, gpus);

    assertThat(resolution.configured())
        .extracting(c -> c.gpuIndex(), c -> c.entry().position(), c -> c.placements().size())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0, 2, 7),
            org.assertj.core.groups.Tuple.tuple(1, 1, 1));
    assertThat(resolution.unmatched())
        .singleElement()
        .satisfies(u -> assertThat(u.reason()).contains("keeps its current MIG state"));
  }

  @Test
  void importRefusesAFilteredLayoutThatDoesNotFitItsModel() {
    String yaml =
        """
        version: v1
        mig-configs:
          bad:
            - device-filter: ["0x20B010DE"]
              devices: all
              mig-enabled: true
              mig-devices: {"1g.10gb": 7}
            - device-filter: "0x26B910DE"
              devices: all
              mig-enabled: true
              mig-devices: {}
            - devices: all
              mig-enabled: true
              mig-devices: {"3g.40gb": 3}
        """;

    MigConfigException e =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            MigConfigException.class, () -> new MigConfigImporter(CATALOG).importFile(yaml));

    assertThat(e.problems()).extracting(MigConfigProblem::line).containsExactly(4, 8, 12, 12);
    assertThat(e.problems().get(0).message()).contains("A100-40GB", "1g.10gb");
    assertThat(e.problems().get(1).message()).contains("L40S", "not MIG capable");
    assertThat(e.problems().get(2).message()).contains("3g.40gb");
  }

  private static List<NodeGpu> oneGpuOfEveryModel() {
    List<NodeGpu> gpus = new ArrayList<>();
    for (GpuModel model : CATALOG.models()) {
      gpus.add(new NodeGpu(gpus.size(), model.pciDeviceId(), null));
    }
    return gpus;
  }
}
