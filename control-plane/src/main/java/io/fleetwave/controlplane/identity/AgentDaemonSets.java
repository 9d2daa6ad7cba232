package io.fleetwave.controlplane.identity;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Objects;

/**
 * The DaemonSets whose pods are node agents ({@code fleetwave.node-identity.agent-daemon-sets}):
 * names, or a prefix ending in {@code *} ({@code fleetwave-agent-*} matches deploy/'s {@code
 * fleetwave-agent-<host kind>}). A pod is an agent's if its controller is one of them, in the
 * namespace the pod was read from.
 */
public final class AgentDaemonSets {
  private final List<String> names;

  public AgentDaemonSets(List<String> names) {
    if (names.isEmpty() || names.stream().anyMatch(n -> n.isBlank() || n.equals("*"))) {
      throw new IllegalArgumentException(
          "fleetwave.node-identity.agent-daemon-sets must name the agents' DaemonSets (names, or a"
              + " prefix ending in *, not * alone), was "
              + names);
    }
    this.names = List.copyOf(names);
  }

  boolean matches(String daemonSet) {
    return names.stream()
        .anyMatch(
            n ->
                n.endsWith("*")
                    ? daemonSet.startsWith(n.substring(0, n.length() - 1))
                    : daemonSet.equals(n));
  }

  /**
   * @param pod {@code namespace/name}, for the messages
   * @param uid the pod's uid as the token names it
   * @param node the node that enrolls
   * @param found the pod as the API server has it, or null
   * @throws EnrolmentRefusedException naming what does not hold
   */
  void check(String pod, String uid, String node, Pod found) {
    if (found == null) {
      throw new EnrolmentRefusedException(
          "the service-account token was issued to pod " + pod + ", which does not exist");
    }
    if (!uid.equals(found.getMetadata().getUid())) {
      throw new EnrolmentRefusedException(
          "the service-account token was issued to an earlier pod "
              + pod
              + " (uid "
              + uid
              + "), not to the one running now");
    }
    String runsOn = found.getSpec() == null ? null : found.getSpec().getNodeName();
    if (!node.equals(runsOn)) {
      throw new EnrolmentRefusedException(
          "pod " + pod + " runs on node '" + runsOn + "', not on '" + node + "'");
    }
    OwnerReference controller =
        found.getMetadata().getOwnerReferences() == null
            ? null
            : found.getMetadata().getOwnerReferences().stream()
                .filter(o -> Boolean.TRUE.equals(o.getController()))
                .findFirst()
                .orElse(null);
    boolean agent =
        controller != null
            && "DaemonSet".equals(controller.getKind())
            && "apps/v1".equals(controller.getApiVersion())
            && matches(controller.getName());
    if (!agent) {
      throw new EnrolmentRefusedException(
          "pod "
              + pod
              + " is not a node agent: its controller is "
              + (controller == null ? "none" : controller.getKind() + " " + controller.getName())
              + ", not one of the DaemonSets "
              + names
              + " (fleetwave.node-identity.agent-daemon-sets)");
    }
  }

  @Override
  public String toString() {
    return Objects.toString(names);
  }
}
