package io.fleetwave.controlplane.kubernetes;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.HashMap;
import java.util.Map;

/**
 * Nodes and pods as a GPU cluster has them, for the drain tests (the demo's RolloutDrainIT too).
 */
public final class KubernetesPods {
  private KubernetesPods() {}

  /**
   * The labels the GPU Operator keeps on a node with MIG off: device plugin and DCGM exporter
   * deployed, GPU feature discovery not; a new map each call, for the caller to change.
   */
  public static Map<String, String> gpuOperatorLabels() {
    Map<String, String> labels = new HashMap<>();
    labels.put("nvidia.com/gpu.deploy.device-plugin", "true");
    labels.put("nvidia.com/gpu.deploy.dcgm-exporter", "true");
    labels.put("nvidia.com/gpu.deploy.gpu-feature-discovery", "false");
    labels.put("nvidia.com/mig.config", "all-disabled");
    labels.put("nvidia.com/mig.config.state", "success");
    return labels;
  }

  public static Node node(String name, Map<String, String> labels, boolean unschedulable) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withUnschedulable(unschedulable ? Boolean.TRUE : null)
        .endSpec()
        .build();
  }

  /** A pod on the node; {@code resource} null: it asks for no GPU. */
  public static Pod pod(String namespace, String name, String node, String resource) {
    PodBuilder pod =
        new PodBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .withUid(namespace + "-" + name + "-uid")
            .endMetadata();
    var container = pod.withNewSpec().withNodeName(node).addNewContainer().withName("main");
    if (resource != null) {
      container.withNewResources().addToLimits(resource, new Quantity("1")).endResources();
    }
    return container
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .endStatus()
        .build();
  }

  static Pod daemonSetPod(String namespace, String name, String node, String resource) {
    Pod pod = pod(namespace, name, node, resource);
    pod.getMetadata()
        .setOwnerReferences(
            java.util.List.of(
                new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                    .withApiVersion("apps/v1")
                    .withKind("DaemonSet")
                    .withName(name + "-ds")
                    .withUid("ds-uid")
                    .build()));
    return pod;
  }

  static Pod mirrorPod(String namespace, String name, String node) {
    Pod pod = pod(namespace, name, node, null);
    pod.getMetadata().setAnnotations(Map.of(PodSelection.MIRROR, "abc"));
    return pod;
  }

  static Pod labelled(Pod pod, Map<String, String> labels) {
    pod.getMetadata().setLabels(labels);
    return pod;
  }
}
