package io.fleetwave.controlplane.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeMarksTest {
  private static final String OWNER = "rollout/r1";
  private static final List<String> OPERANDS = List.of("device-plugin", "dcgm-exporter", "nvsm");

  private static NodeMarks marks(Map<String, String> labels, Map<String, String> annotations) {
    return new NodeMarks(labels, annotations, false);
  }

  @Test
  void onlyOperandsDeployedOnTheNodeArePausedAndEachGoesBackToItsOwnValue() {
    NodeMarks marks =
        marks(
            Map.of(
                "nvidia.com/gpu.deploy.device-plugin", "true",
                "nvidia.com/gpu.deploy.dcgm-exporter", "false"),
            Map.of());

    List<String> paused = marks.pauseForMigChange("all-balanced", OPERANDS);
    assertThat(paused).containsExactly("device-plugin");
    assertThat(marks.labels())
        .containsEntry("nvidia.com/gpu.deploy.device-plugin", "paused-for-mig-change")
        .containsEntry("nvidia.com/gpu.deploy.dcgm-exporter", "false")
        .doesNotContainKey("nvidia.com/gpu.deploy.nvsm");

    assertThat(marks.restore("success")).containsExactly("device-plugin");
    assertThat(marks.labels())
        .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true")
        .containsEntry("nvidia.com/gpu.deploy.dcgm-exporter", "false")
        .containsEntry("nvidia.com/mig.config", "all-balanced")
        .containsEntry("nvidia.com/mig.config.state", "success");
    assertThat(marks.annotations()).doesNotContainKey(NodeMarks.LABELS_BEFORE);
  }

  @Test
  void pausingAgainAfterACrashKeepsTheValuesFromBeforeTheFirstPause() {
    NodeMarks first =
        marks(
            Map.of("nvidia.com/gpu.deploy.device-plugin", "true", "nvidia.com/mig.config", "a"),
            Map.of());
    first.holdUpgrades();
    first.pauseForMigChange("b", OPERANDS);
    // What a control plane that takes over finds on the node.
    NodeMarks again = marks(new HashMap<>(first.labels()), new HashMap<>(first.annotations()));

    assertThat(again.pauseForMigChange("b", OPERANDS)).containsExactly("device-plugin");
    assertThat(again.migConfigBefore()).isEqualTo("a");
    again.restore("failed");
    assertThat(again.labels())
        .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true")
        .containsEntry("nvidia.com/mig.config.state", "failed")
        .doesNotContainKey("nvidia.com/gpu-driver-upgrade.skip");
  }

  @Test
  void theCordonIsOursOnlyWhenWeSetItAndOnlyOurOwnIsLifted() {
    NodeMarks schedulable = marks(Map.of(), Map.of());
    assertThat(schedulable.cordon(OWNER)).as("cordoned before?").isFalse();
    assertThat(schedulable.unschedulable()).isTrue();
    assertThat(schedulable.cordon(OWNER)).as("our own cordon, met again").isFalse();
    assertThat(schedulable.uncordon(OWNER)).isTrue();
    assertThat(schedulable.unschedulable()).isFalse();

    NodeMarks theirs =
        new NodeMarks(Map.of(), Map.of(NodeMarks.CORDONED_BY, "rollout/another"), true);
    assertThat(theirs.cordon(OWNER)).isTrue();
    assertThat(theirs.uncordon(OWNER)).isFalse();
    assertThat(theirs.unschedulable()).isTrue();
  }

  @Test
  void aMigStateIsWrittenOnlyWhileThisChangeManagesIt() {
    NodeMarks driverOnly = marks(Map.of("nvidia.com/mig.config.state", "success"), Map.of());
    driverOnly.holdUpgrades();
    driverOnly.migState("rebooting");
    driverOnly.restore("failed");
    assertThat(driverOnly.labels()).containsEntry("nvidia.com/mig.config.state", "success");
  }
}
