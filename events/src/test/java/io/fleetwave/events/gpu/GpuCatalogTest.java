package io.fleetwave.events.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.yaml.YamlException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class GpuCatalogTest {

  @Test
  void theBundledJsonIsTheYamlSource() throws IOException {
    GpuCatalog fromSource = GpuCatalog.fromYaml(resource(GpuCatalog.SOURCE));

    assertThat(GpuCatalog.bundled().models())
        .isNotEmpty()
        .containsExactlyElementsOf(fromSource.models());
  }

  @Test
  void aModelIsFoundByPciIdInAnyCaseAndByShortName() {
    GpuModel h100 = GpuCatalog.bundled().find("H100-80GB").orElseThrow();

    assertThat(GpuCatalog.bundled().find("0x233010de")).contains(h100);
    assertThat(GpuCatalog.bundled().find("233010DE")).contains(h100);
    assertThat(h100.mig().profiles()).isNotEmpty();
  }

  @Test
  void theYamlSourceIsReadStrictly() {
    assertThatThrownBy(
            () ->
                GpuCatalog.fromYaml(
                    """
                    geometries: {}
                    models: []
                    colour: green
                    """))
        .isInstanceOf(YamlException.class)
        .hasMessageContaining("line 3")
        .hasMessageContaining("unknown field 'colour'");
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = GpuCatalog.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
