package io.fleetwave.controlplane.kubernetes;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fleetwave.core.rollout.disruption.Disruption;
import io.fleetwave.core.selector.LabelSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which pods of a node leave before its change. Never DaemonSet pods (their controller would put
 * them back at once, and the GPU Operator's operands are paused through their labels instead) nor
 * mirror pods (the kubelet owns them), nor pods that already finished. Of the rest: for a change of
 * the GPUs, the pods that request GPU resources ({@code nvidia.com/gpu}, {@code nvidia.com/mig-*}
 * by default) and those matching the configured selector; every pod for a reboot or when a full
 * drain is configured. Pure: fabric8's model only.
 *
 * @param gpuResources resource names that mean "uses a GPU"; a trailing {@code *} matches a prefix
 * @param alsoEvict pods matching it leave too (empty selector: none)
 * @param full every pod leaves, whatever the change
 */
record PodSelection(List<String> gpuResources, LabelSelector alsoEvict, boolean full) {
  static final String MIRROR = "kubernetes.io/config.mirror";

  PodSelection {
    gpuResources = List.copyOf(gpuResources);
    Objects.requireNonNull(alsoEvict, "alsoEvict");
  }

  /** Whether this pod leaves the node before a change that disturbs it so. */
  boolean evicts(Pod pod, Disruption disruption) {
    if (disruption == Disruption.NONE || !movable(pod)) {
      return false;
    }
    return full
        || disruption == Disruption.NODE
        || usesGpu(pod)
        || (!alsoEvict.requirements().isEmpty() && alsoEvict.matches(labels(pod)));
  }

  /** Not a DaemonSet or mirror pod, and still running (or about to). */
  static boolean movable(Pod pod) {
    return !daemonSetOwned(pod) && !mirror(pod) && !finished(pod);
  }

  static boolean finished(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  static boolean daemonSetOwned(Pod pod) {
    List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
    return owners != null && owners.stream().anyMatch(o -> "DaemonSet".equals(o.getKind()));
  }

  static boolean mirror(Pod pod) {
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    return annotations != null && annotations.containsKey(MIRROR);
  }

  static Map<String, String> labels(Pod pod) {
    return Objects.requireNonNullElse(pod.getMetadata().getLabels(), Map.of());
  }

  /** Whether any container asks for a GPU resource (requests or limits). */
  boolean usesGpu(Pod pod) {
    if (pod.getSpec() == null) {
      return false;
    }
    List<Container> containers = new ArrayList<>();
    containers.addAll(Objects.requireNonNullElse(pod.getSpec().getContainers(), List.of()));
    containers.addAll(Objects.requireNonNullElse(pod.getSpec().getInitContainers(), List.of()));
    for (Container container : containers) {
      ResourceRequirements resources = container.getResources();
      if (resources != null && (anyGpu(resources.getRequests()) || anyGpu(resources.getLimits()))) {
        return true;
      }
    }
    return false;
  }

  private boolean anyGpu(Map<String, Quantity> amounts) {
    if (amounts == null) {
      return false;
    }
    for (String name : amounts.keySet()) {
      for (String wanted : gpuResources) {
        boolean match =
            wanted.endsWith("*")
                ? name.startsWith(wanted.substring(0, wanted.length() - 1))
                : name.equals(wanted);
        if (match) {
          return true;
        }
      }
    }
    return false;
  }

  /** {@code namespace/name}, the way messages and events name a pod. */
  static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
