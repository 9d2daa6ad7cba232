package io.fleetwave.events.spec;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class GpuSpecRulesTest {
  private static final GpuModel H100 = GpuCatalog.bundled().find("H100-80GB").orElseThrow();
  private static final GpuModel L4 = GpuCatalog.bundled().find("L4").orElseThrow();
  private static final GpuSpecRules.GpuFacts H100_HERE =
      new GpuSpecRules.GpuFacts("NVIDIA H100 80GB HBM3", "0x233010DE", true, 4);

  @Test
  void aSpecThatFitsHasNoViolation() {
    assertThat(
            GpuSpecRules.check(
                H100,
                H100_HERE,
                new GpuSpec(
                    0, true, Map.of("3g.40gb", 1, "1g.10gb", 2), 2, Map.of(0, "H100-1-10C"))))
        .isEmpty();
  }

  @Test
  void everyViolationIsListedWithItsFieldPath() {
    assertThat(
            GpuSpecRules.check(
                H100,
                H100_HERE,
                true,
                new TreeMap<>(Map.of("3g.40gb", 3, "9g.99gb", 1, "1g.10gb+me", 2)),
                6,
                Map.of(0, "H100-2-20C", 1, "H100-10C", 2, "L4-4Q", 7, "H100-1-10C")))
        .extracting(SpecViolation::field)
        .containsExactly(
            "instances.1g.10gb+me",
            "instances.3g.40gb",
            "instances.9g.99gb",
            "instances",
            "vfs",
            "vgpuTypes.0",
            "vgpuTypes.1",
            "vgpuTypes.2",
            "vgpuTypes.7");
  }

  @Test
  void messagesNameTheModelTheLimitAndWhatWasAsked() {
    assertThat(
            GpuSpecRules.check(
                H100,
                H100_HERE,
                new GpuSpec(0, true, Map.of("4g.40gb", 1, "7g.80gb", 1), 0, Map.of())))
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.field()).isEqualTo("instances");
              assertThat(v.message())
                  .startsWith("1 x 4g.40gb + 1 x 7g.80gb does not fit H100-80GB")
                  .contains("7 compute / 8 memory slices; uses 11 compute / 12 memory slices");
            });
    assertThat(GpuSpecRules.check(H100, H100_HERE, new GpuSpec(0, false, Map.of(), 5, Map.of())))
        .containsExactly(new SpecViolation("vfs", "the host offers 4 VFs, 5 asked"));
  }

  @Test
  void migOnANonMigCardIsRefusedOnItsMigField() {
    GpuSpecRules.GpuFacts l4 = new GpuSpecRules.GpuFacts("NVIDIA L4", "0x27B810DE", false, 0);

    assertThat(GpuSpecRules.check(L4, l4, new GpuSpec(0, true, Map.of("1g.10gb", 1), 0, Map.of())))
        .containsExactly(new SpecViolation("migEnabled", "NVIDIA L4 is not MIG capable"));
  }

  @Test
  void aGpuOutsideTheCatalogueMayOnlyBeLeftAsItIs() {
    GpuSpecRules.GpuFacts unknown = new GpuSpecRules.GpuFacts("NVIDIA X1", "0xFFFF10DE", true, 8);

    assertThat(GpuSpecRules.check(null, unknown, new GpuSpec(0, false, Map.of(), 0, Map.of())))
        .isEmpty();
    assertThat(GpuSpecRules.check(null, unknown, new GpuSpec(0, false, Map.of(), 2, Map.of())))
        .extracting(SpecViolation::field)
        .containsExactly("index");
  }
}
