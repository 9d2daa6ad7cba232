package io.fleetwave.events.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.node.GpuInstance;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MigPlacerTest {
  private static final MigGeometry H100 =
      GpuCatalog.bundled().find("H100-80GB").orElseThrow().mig();
  private static final MigGeometry A30 = GpuCatalog.bundled().find("A30").orElseThrow().mig();

  @Test
  void backtracksWhenTheLargestFirstGuessLeavesNoRoom() {
    // 3g at slice 0 leaves 2g at 4 and a 1g at 6, but the second 1g cannot start at 7.
    assertThat(
            MigPlacer.place(H100, Map.of("3g.40gb", 1, "2g.20gb", 1, "1g.10gb", 2)).orElseThrow())
        .containsExactly(
            new GpuInstance("2g.20gb", 0, 2),
            new GpuInstance("1g.10gb", 2, 1),
            new GpuInstance("1g.10gb", 3, 1),
            new GpuInstance("3g.40gb", 4, 4));
  }

  @Test
  void placesAroundInstancesThatStay() {
    List<GpuInstance> staying = List.of(new GpuInstance("3g.40gb", 0, 4));

    assertThat(MigPlacer.place(H100, staying, Map.of("3g.40gb", 1)).orElseThrow())
        .containsExactly(new GpuInstance("3g.40gb", 4, 4));
    assertThat(MigPlacer.place(H100, staying, Map.of("4g.40gb", 1))).isEmpty();
  }

  @Test
  void refusesMoreComputeThanTheGpuHasEvenWhenMemoryIsFree() {
    MigGeometry computeBound =
        new MigGeometry(
            3, 4, List.of(new MigProfile("wide", "2g", 1, 2, 1, 4, List.of(0, 1, 2, 3))));

    assertThat(MigPlacer.place(computeBound, Map.of("wide", 1))).isPresent();
    assertThat(MigPlacer.place(computeBound, Map.of("wide", 2))).isEmpty();
  }

  @Test
  void holdsOneMediaExtensionInstanceAcrossProfiles() {
    // A30 has one set of media engines: one +me instance, whether 1g or 2g.
    assertThat(MigPlacer.place(A30, Map.of("1g.6gb+me", 1, "2g.12gb", 1))).isPresent();
    assertThat(MigPlacer.place(A30, Map.of("1g.6gb+me", 1, "2g.12gb+me", 1))).isEmpty();
  }

  @Test
  void anUnknownProfileIsAnArgumentErrorNamingTheKnownOnes() {
    assertThatThrownBy(() -> MigPlacer.place(A30, Map.of("1g.10gb", 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'1g.10gb'")
        .hasMessageContaining("1g.6gb");
  }
}
