package io.fleetwave.events.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeSpecTest {

  @Test
  void keepsGpusSortedByIndex() {
    NodeSpec spec =
        new NodeSpec("n", 1, null, List.of(gpu(3), gpu(0), gpu(1)), GatePolicy.HOLD_UNTIL_APPLIED);

    assertThat(spec.gpus()).extracting(GpuSpec::index).containsExactly(0, 1, 3);
    assertThat(spec.gpu(3)).isPresent();
    assertThat(spec.gpu(2)).isEmpty();
  }

  @Test
  void refusesAGpuListedTwice() {
    assertThatThrownBy(() -> new NodeSpec("n", 1, null, List.of(gpu(1), gpu(1)), GatePolicy.OPEN))
        .hasMessage("field 'gpus' lists GPU 1 more than once");
  }

  @Test
  void refusesGenerationZero() {
    assertThatThrownBy(() -> new NodeSpec("n", 0, null, List.of(), GatePolicy.OPEN))
        .hasMessage("field 'generation' must be positive: 0");
  }

  @Test
  void refusesInstancesWithoutMig() {
    assertThatThrownBy(() -> new GpuSpec(0, false, Map.of("1g.10gb", 1), 0, Map.of()))
        .hasMessageContaining("field 'instances' must be empty when 'migEnabled' is false");
  }

  @Test
  void refusesAVgpuTypeOnAVfThatIsNotWanted() {
    assertThatThrownBy(() -> new GpuSpec(0, false, Map.of(), 2, Map.of(2, "L4-4Q")))
        .hasMessageContaining("field 'vgpuTypes' names VF 2 but 'vfs' is 2");
  }

  @Test
  void mapsAreSortedSoTheEncodingIsStable() {
    GpuSpec spec =
        new GpuSpec(0, true, Map.of("3g.40gb", 1, "1g.10gb", 2, "2g.20gb", 1), 0, Map.of());

    assertThat(spec.instances().keySet()).containsExactly("1g.10gb", "2g.20gb", "3g.40gb");
    assertThat(spec.instanceCount()).isEqualTo(4);
  }

  private static GpuSpec gpu(int index) {
    return new GpuSpec(index, false, Map.of(), 0, Map.of());
  }
}
