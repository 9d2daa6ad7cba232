package io.fleetwave.core.mig;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class MigConfigWriterTest {

  @Test
  void writtenFilesParseBackToTheSameConfigs() {
    for (String name : List.of("nvidia-config-default.yaml", "all-sections.yaml")) {
      MigConfigFile original = MigConfigParser.parse(MigTestFiles.read(name));

      MigConfigFile again =
          MigConfigParser.parse(MigConfigWriter.write(original.configs().values()));

      assertThat(again.configs().keySet()).containsExactlyElementsOf(original.configs().keySet());
      for (MigConfig config : original.configs().values()) {
        assertThat(withoutLines(again.config(config.name()).orElseThrow()))
            .as(name + " " + config.name())
            .isEqualTo(withoutLines(config));
      }
    }
  }

  private static List<MigConfigEntry> withoutLines(MigConfig config) {
    return config.entries().stream()
        .map(
            e ->
                new MigConfigEntry(
                    e.position(), 0, e.deviceFilter(), e.devices(), e.migEnabled(), e.migDevices()))
        .toList();
  }
}
