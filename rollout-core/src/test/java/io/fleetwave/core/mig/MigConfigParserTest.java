package io.fleetwave.core.mig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class MigConfigParserTest {

  @Test
  void fileUsingEverySectionOfTheFormatParses() {
    MigConfigFile file = MigConfigParser.parse(MigTestFiles.read("all-sections.yaml"));

    assertThat(file.version()).isEqualTo("v1");
    assertThat(file.configs().keySet())
        .containsExactly("all-disabled", "enabled-no-instances", "mixed-fleet");
    assertThat(file.config("enabled-no-instances").orElseThrow().entries().getFirst())
        .satisfies(
            e -> {
              assertThat(e.migEnabled()).isTrue();
              assertThat(e.migDevices()).isEmpty();
            });
    List<MigConfigEntry> mixed = file.config("mixed-fleet").orElseThrow().entries();
    assertThat(mixed).hasSize(4);
    assertThat(mixed.get(0).deviceFilter())
        .containsExactly(new PciDeviceFilter("0x233010DE", "0x16C110DE"));
    assertThat(mixed.get(0).devices()).isEqualTo(DeviceSelection.Indices.of(List.of(0)));
    assertThat(mixed.get(1).deviceFilter()).hasSize(2);
    assertThat(mixed.get(1).migDevices())
        .containsExactly(Map.entry("1g.10gb", 2), Map.entry("2g.20gb", 1), Map.entry("3g.40gb", 1));
    assertThat(mixed.get(2).devices()).isInstanceOf(DeviceSelection.All.class);
    assertThat(mixed.get(3).deviceFilter()).isEmpty();
    assertThat(mixed.get(3).migEnabled()).isFalse();
    assertThat(mixed.get(1).line()).isEqualTo(21);
  }

  @Test
  void unknownFieldIsRejectedWithItsLineAndPath() {
    String yaml =
        """
        version: v1
        mig-configs:
          custom:
            - devices: all
              mig-enabled: true
              mig-device: {"1g.10gb": 7}
        """;

    assertThat(problemsOf(yaml))
        .anySatisfy(at(6, "mig-configs.custom[0].mig-device", "unknown field 'mig-device'"));
  }

  @Test
  void unknownTopLevelFieldIsRejected() {
    assertThatThrownBy(() -> parse("version: v1\nmig-configs: {}\nvgpu-configs: {}\n"))
        .isInstanceOf(MigConfigException.class)
        .hasMessageContaining("line 3, vgpu-configs: unknown field 'vgpu-configs'");
  }

  @Test
  void migEnabledTrueWithoutMigDevicesIsRejected() {
    String yaml =
        """
        version: v1
        mig-configs:
          broken:
            - devices: all
              mig-enabled: false
            - devices: all
              mig-enabled: true
        """;

    assertThat(problemsOf(yaml))
        .singleElement()
        .satisfies(
            at(6, "mig-configs.broken[1].mig-devices", "mig-enabled: true needs mig-devices"));
  }

  @Test
  void migDevicesWithMigDisabledIsRejected() {
    String yaml =
        """
        version: v1
        mig-configs:
          broken:
            - devices: all
              mig-enabled: false
              mig-devices: {"1g.10gb": 7}
        """;

    assertThatThrownBy(() -> parse(yaml))
        .hasMessageContaining("line 6, mig-configs.broken[0].mig-devices")
        .hasMessageContaining("mig-enabled: false allows no mig-devices");
  }

  @Test
  void badDeviceFilterIsRejectedWithLineAndField() {
    String yaml =
        """
        version: v1
        mig-configs:
          broken:
            - device-filter: ["0x233010DE", "H100"]
              devices: all
              mig-enabled: false
            - device-filter: "0x233010DE:16C1"
              devices: all
              mig-enabled: false
        """;

    assertThat(problemsOf(yaml))
        .satisfiesExactly(
            at(4, "mig-configs.broken[0].device-filter", "'H100' is not a PCI device id"),
            at(7, "mig-configs.broken[1].device-filter", "malformed subsystem id"));
  }

  @Test
  void malformedValuesAreEachReported() {
    String yaml =
        """
        version: v2
        mig-configs:
          broken:
            - devices: some
              mig-enabled: "true"
              mig-devices: {"1g.10gb": -1}
            - devices: [0, 0]
              mig-enabled: true
              mig-devices: {"big": 1}
          empty: []
        """;

    assertThat(problemsOf(yaml))
        .extracting(MigConfigProblem::line, MigConfigProblem::field)
        .contains(
            tuple(1, "version"),
            tuple(4, "mig-configs.broken[0].devices"),
            tuple(5, "mig-configs.broken[0].mig-enabled"),
            tuple(6, "mig-configs.broken[0].mig-devices.1g.10gb"),
            tuple(7, "mig-configs.broken[1].devices"),
            tuple(9, "mig-configs.broken[1].mig-devices.big"),
            tuple(10, "mig-configs.empty"));
  }

  @Test
  void duplicateKeysAndBrokenYamlAreRejectedWithTheirLine() {
    assertThatThrownBy(() -> parse("version: v1\nmig-configs:\n  a: []\n  a: []\n"))
        .hasMessageContaining("line 4, a: duplicate key 'a'");
    assertThatThrownBy(() -> parse("version: v1\nmig-configs: [\n"))
        .isInstanceOf(MigConfigException.class)
        .hasMessageContaining("not valid YAML");
  }

  /**
   * An alias reached the parser as a string holding the anchor's name: here {@code *all} stood for
   * GPU 0 but read as {@code all}, every GPU of the node.
   */
  @Test
  void aliasesAreRejectedWithTheirLine() {
    String yaml =
        """
        version: v1
        mig-configs:
          first:
            - devices: &all [0]
              mig-enabled: false
          second:
            - devices: *all
              mig-enabled: false
        """;
    assertThatThrownBy(() -> parse(yaml))
        .isInstanceOf(MigConfigException.class)
        .hasMessageContaining("line 7")
        .hasMessageContaining("YAML aliases are not supported (*all)");
  }

  private static MigConfigFile parse(String yaml) {
    return MigConfigParser.parse(yaml);
  }

  /** The problems the parser reports for {@code yaml}, which it must refuse. */
  private static List<MigConfigProblem> problemsOf(String yaml) {
    return catchThrowableOfType(MigConfigException.class, () -> parse(yaml)).problems();
  }

  /** The problem at {@code line} naming {@code field}, its message containing {@code message}. */
  private static Consumer<MigConfigProblem> at(int line, String field, String message) {
    return p -> {
      assertThat(p.line()).isEqualTo(line);
      assertThat(p.field()).isEqualTo(field);
      assertThat(p.message()).contains(message);
    };
  }
}
