package io.fleetwave.core.provenance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ChangeAttributionTest {
  private static ObservedChange change(
      AspectKey key, String after, Long stepGeneration, String bootId) {
    return new ObservedChange("n", 1, 5, Instant.EPOCH, key, "x", after, stepGeneration, 3, bootId);
  }

  private static final AspectKey MIG = new AspectKey(Aspect.MIG_MODE, 0);

  @Test
  void aStepsGenerationWinsOverABoot() {
    assertThat(ChangeAttribution.attribute(change(MIG, "enabled", 3L, "b"), OptionalLong.empty()))
        .isEqualTo(new ChangeAttribution.Attribution(ChangeCause.SPEC, 3L));
  }

  @Test
  void aGpuChangeWithABootAndNoStepIsTheBoots() {
    assertThat(
            ChangeAttribution.attribute(change(MIG, "disabled", null, "b"), OptionalLong.of(3))
                .cause())
        .isEqualTo(ChangeCause.REBOOT);
  }

  @Test
  void aGpuChangeWithNeitherIsOutsideFleetwave() {
    assertThat(ChangeAttribution.attribute(change(MIG, "disabled", null, null), OptionalLong.of(3)))
        .isEqualTo(new ChangeAttribution.Attribution(ChangeCause.OUTSIDE, null));
  }

  @Test
  void aBootDoesNotExplainADriverNobodyAskedFor() {
    assertThat(
            ChangeAttribution.attribute(
                    change(AspectKey.DRIVER, "590.10", null, "b"), OptionalLong.empty())
                .cause())
        .isEqualTo(ChangeCause.OUTSIDE);
  }

  @Test
  void aDriverAskedForIsTheAskingGenerations() {
    assertThat(
            ChangeAttribution.attribute(
                change(AspectKey.DRIVER, "590.10", null, null), OptionalLong.of(9)))
        .isEqualTo(new ChangeAttribution.Attribution(ChangeCause.SPEC, 9L));
  }

  @Test
  void aspectKeysRoundTripThroughTheirTextAndRefuseNonsense() {
    assertThat(AspectKey.parse("3/mig-layout")).isEqualTo(new AspectKey(Aspect.MIG_LAYOUT, 3));
    assertThat(AspectKey.parse("driver")).isEqualTo(AspectKey.DRIVER);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> AspectKey.parse("0/colour"))
        .hasMessageContaining("unknown aspect 'colour'");
  }
}
