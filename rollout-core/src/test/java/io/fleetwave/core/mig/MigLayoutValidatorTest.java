package io.fleetwave.core.mig;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.gpu.MigPlacer;
import io.fleetwave.events.node.GpuInstance;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MigLayoutValidatorTest {
  private static final GpuCatalog CATALOG = GpuCatalog.bundled();
  private static final String WHERE = "config 'x' entry 1 (line 4)";

  @Test
  void threeThreeSliceInstancesDoNotFitASevenSliceGpu() {
    assertThat(rejections(validate("H100-80GB", Map.of("3g.40gb", 3))))
        .singleElement()
        .asString()
        .contains("H100-80GB", "3g.40gb", "holds at most 2", WHERE);
  }

  @Test
  void twoThreeSliceAndOneOneSliceDoNotPackEvenThoughCountsAreAllowed() {
    // 2 x 3g takes all 8 memory slices: no start is left for a 1g, though compute (7) would allow
    // it.
    assertThat(rejections(validate("A100-80GB", ordered("3g.40gb", 2, "1g.10gb", 1))))
        .singleElement()
        .asString()
        .contains("does not fit A100-80GB", "2 x 3g.40gb + 1 x 1g.10gb", WHERE);
  }

  @Test
  void allBalancedFitsWithConcreteNonOverlappingPlacements() {
    MigLayoutResult result =
        validate("H100-80GB", ordered("1g.10gb", 2, "2g.20gb", 1, "3g.40gb", 1));

    assertThat(result).isInstanceOf(MigLayoutResult.Fits.class);
    assertThat(((MigLayoutResult.Fits) result).placements())
        .containsExactly(
            new GpuInstance("2g.20gb", 0, 2),
            new GpuInstance("1g.10gb", 2, 1),
            new GpuInstance("1g.10gb", 3, 1),
            new GpuInstance("3g.40gb", 4, 4));
  }

  @Test
  void oneGigTenOnAnA100FortyIsTheDoubleMemoryProfileAndHoldsOnlyFour() {
    assertThat(rejections(validate("A100-40GB", Map.of("1g.10gb", 7))))
        .singleElement()
        .asString()
        .contains("A100-40GB", "holds at most 4 x 1g.10gb", "single-slice 1g profile", "1g.5gb");
  }

  @Test
  void profileOfAnotherModelIsRejectedNamingModelAndProfile() {
    assertThat(rejections(validate("A100-40GB", Map.of("1g.18gb", 7))))
        .singleElement()
        .asString()
        .contains("profile 1g.18gb does not exist on A100-40GB", WHERE, "1g.5gb");
  }

  @Test
  void migOnANonMigGpuIsRejected() {
    assertThat(rejections(validate("L40S", Map.of("1g.10gb", 7))))
        .singleElement()
        .asString()
        .contains("L40S", "is not MIG capable", "7 x 1g.10gb");
    assertThat(validateDisabled("L40S")).isEqualTo(new MigLayoutResult.Fits(java.util.List.of()));
  }

  @Test
  void twoMediaExtensionInstancesAreRejected() {
    assertThat(
            rejections(validate("RTX-PRO-6000", ordered("1g.24gb+me.all", 1, "2g.48gb+me.all", 1))))
        .anySatisfy(
            e ->
                assertThat(e)
                    .contains("RTX-PRO-6000", "at most one media-extension", "1g.24gb+me.all"));
    assertThat(rejections(validate("H100-80GB", Map.of("1g.10gb+me", 2))))
        .anySatisfy(e -> assertThat(e).contains("at most one media-extension", "1g.10gb+me"));
  }

  @Test
  void everyPlacementRespectsAllowedStartsAndDoesNotOverlap() {
    GpuModel h100 = model("H100-80GB");
    var placements =
        MigPlacer.place(h100.mig(), ordered("1g.10gb+me", 1, "1g.20gb", 1, "2g.20gb", 2))
            .orElseThrow();
    boolean[] used = new boolean[8];
    for (GpuInstance i : placements) {
      assertThat(h100.profile(i.profile()).orElseThrow().starts()).contains(i.placementStart());
      for (int s = i.placementStart(); s < i.placementStart() + i.placementSize(); s++) {
        assertThat(used[s]).as("slice %d used twice in %s", s, placements).isFalse();
        used[s] = true;
      }
    }
  }

  private static MigLayoutResult validate(String model, Map<String, Integer> counts) {
    return MigLayoutValidator.validate(model(model), true, counts, WHERE);
  }

  private static MigLayoutResult validateDisabled(String model) {
    return MigLayoutValidator.validate(model(model), false, Map.of(), WHERE);
  }

  private static GpuModel model(String name) {
    return CATALOG.find(name).orElseThrow();
  }

  private static Map<String, Integer> ordered(Object... pairs) {
    Map<String, Integer> map = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.put((String) pairs[i], (Integer) pairs[i + 1]);
    }
    return map;
  }

  /** Why the layout was rejected; it must be. */
  private static List<String> rejections(MigLayoutResult result) {
    assertThat(result).isInstanceOf(MigLayoutResult.Rejected.class);
    return ((MigLayoutResult.Rejected) result).errors();
  }
}
