package io.fleetwave.controlplane.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The MIG layout of a GPU and of a node, as reports.gpu_layouts and node_inventory write them. */
class MigLayoutTest {
  @Test
  void aGpuWithMigOnListsItsInstancesProfilesInPlacementOrder() {
    NodeView.GpuView gpu =
        gpu("enabled", instance("1g.10gb", 6), instance("3g.40gb", 0), instance("2g.20gb", 4));

    assertThat(MigLayout.of(gpu)).isEqualTo("3g.40gb+2g.20gb+1g.10gb");
    assertThat(MigLayout.of(gpu("enabled"))).isEqualTo("MIG on, no instances");
    assertThat(MigLayout.of(gpu("disabled"))).isEqualTo("MIG off");
    assertThat(MigLayout.of(gpu("unsupported"))).isEqualTo("no MIG");
    // Instances reported with MIG off are not a layout.
    assertThat(MigLayout.of(gpu("disabled", instance("7g.80gb", 0)))).isEqualTo("MIG off");
  }

  /** A node's layouts each once, in the C collation's order (a string_agg DISTINCT sorts). */
  @Test
  void aNodeJoinsItsGpusDistinctLayoutsInOrder() {
    assertThat(
            MigLayout.ofNode(
                List.of(
                    gpu("disabled"),
                    gpu("enabled", instance("3g.40gb", 4), instance("3g.40gb", 0)),
                    gpu("disabled"),
                    gpu("enabled"),
                    gpu("unsupported"))))
        .isEqualTo("3g.40gb+3g.40gb | MIG off | MIG on, no instances | no MIG");
    assertThat(MigLayout.ofNode(List.of())).isEqualTo("(no GPUs)");
  }

  static NodeView.InstanceView instance(String profile, int start) {
    return new NodeView.InstanceView(profile, new NodeView.Placement(start, 1));
  }

  static NodeView.GpuView gpu(String migMode, NodeView.InstanceView... instances) {
    return new NodeView.GpuView(
        0,
        "GPU-0",
        "0000:00:00.0",
        "0x233010DE",
        "NVIDIA H100 80GB HBM3",
        81_559,
        true,
        migMode,
        migMode,
        List.of(instances),
        0,
        0,
        "healthy");
  }
}
