package io.fleetwave.controlplane.kubernetes;

import static io.fleetwave.controlplane.kubernetes.KubernetesPods.daemonSetPod;
import static io.fleetwave.controlplane.kubernetes.KubernetesPods.labelled;
import static io.fleetwave.controlplane.kubernetes.KubernetesPods.mirrorPod;
import static io.fleetwave.controlplane.kubernetes.KubernetesPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fleetwave.core.rollout.disruption.Disruption;
import io.fleetwave.core.selector.LabelSelector;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodSelectionTest {
  private static final List<String> GPU = List.of("nvidia.com/gpu", "nvidia.com/mig-*");
  private static final PodSelection DEFAULT = new PodSelection(GPU, LabelSelector.parse(""), false);

  @Test
  void podsAskingForAGpuOrAMigDeviceLeaveForAGpuChangeAndOthersStay() {
    assertThat(DEFAULT.evicts(pod("a", "train", "n", "nvidia.com/gpu"), Disruption.GPU)).isTrue();
    assertThat(DEFAULT.evicts(pod("a", "mig", "n", "nvidia.com/mig-3g.40gb"), Disruption.GPU))
        .isTrue();
    assertThat(DEFAULT.evicts(pod("a", "web", "n", null), Disruption.GPU)).isFalse();
    assertThat(DEFAULT.evicts(pod("a", "nic", "n", "nvidia.com/gpu-nic"), Disruption.GPU))
        .as("an exact name is not a prefix")
        .isFalse();
  }

  @Test
  void aGpuRequestedOnlyByAnInitContainerCounts() {
    Pod pod = pod("a", "init", "n", null);
    pod.getSpec()
        .setInitContainers(
            List.of(
                new io.fabric8.kubernetes.api.model.ContainerBuilder()
                    .withName("warm-up")
                    .withNewResources()
                    .addToRequests("nvidia.com/gpu", new Quantity("1"))
                    .endResources()
                    .build()));
    assertThat(DEFAULT.evicts(pod, Disruption.GPU)).isTrue();
  }

  @Test
  void daemonSetMirrorAndFinishedPodsNeverLeaveEvenForAReboot() {
    Pod done = pod("a", "done", "n", "nvidia.com/gpu");
    done.getStatus().setPhase("Succeeded");
    for (Pod pod :
        List.of(
            daemonSetPod("gpu-operator", "dp", "n", "nvidia.com/gpu"),
            mirrorPod("kube-system", "etcd", "n"),
            done)) {
      assertThat(DEFAULT.evicts(pod, Disruption.NODE)).as(PodSelection.key(pod)).isFalse();
    }
  }

  @Test
  void aRebootAFullDrainOrTheSelectorMoveOtherPodsToo() {
    Pod web = labelled(pod("a", "web", "n", null), Map.of("app", "inference"));
    assertThat(DEFAULT.evicts(web, Disruption.NODE)).isTrue();
    assertThat(new PodSelection(GPU, LabelSelector.parse(""), true).evicts(web, Disruption.GPU))
        .isTrue();
    assertThat(
            new PodSelection(GPU, LabelSelector.parse("app=inference"), false)
                .evicts(web, Disruption.GPU))
        .isTrue();
    assertThat(DEFAULT.evicts(pod("a", "t", "n", "nvidia.com/gpu"), Disruption.NONE)).isFalse();
  }
}
