package io.fleetwave.core.rollout.disruption;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.core.rollout.plan.DriverStep;
import io.fleetwave.core.rollout.plan.GpuChange;
import io.fleetwave.core.rollout.plan.NodePlan;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DisruptionTest {
  private static final GpuChange MIG_ON =
      new GpuChange(0, "H100-80GB", MigMode.DISABLED, true, List.of(), List.of(), false, 0);

  private static NodePlan plan(List<GpuChange> gpus, DriverStep driver) {
    return new NodePlan(
        "n", HostKind.UBUNTU, "a", gpus, List.of(), driver, false, 0, null, 0, Map.of());
  }

  @Test
  void aMigChangeOrAModuleDriverChangeMovesTheGpuWork() {
    assertThat(Disruption.of(plan(List.of(MIG_ON), null))).isEqualTo(Disruption.GPU);
    DriverStep container =
        new DriverStep(
            "570.86.15",
            "580.95.05",
            new DriverArtifact.ContainerImage("580.95.05", "nvcr.io/nvidia/driver", "t", false),
            false);
    assertThat(Disruption.of(plan(List.of(), container))).isEqualTo(Disruption.GPU);
  }

  @Test
  void aDriverThatComesWithTheOsImageRebootsTheNode() {
    DriverStep talos =
        new DriverStep(
            "570.86.15",
            "580.95.05",
            new DriverArtifact.OsImage("580.95.05", "talos", "v1.11.2"),
            true);
    assertThat(Disruption.of(plan(List.of(MIG_ON), talos))).isEqualTo(Disruption.NODE);
  }

  @Test
  void aPlanThatChangesNothingDisturbsNothing() {
    assertThat(Disruption.of(plan(List.of(), null))).isEqualTo(Disruption.NONE);
  }
}
